import { describe, expect, test } from 'vitest';
import { databaseUrl } from './database-url.js';

describe('the benchmark database URL', () => {
  test('puts the database in the path of a TCP server URL', () => {
    expect(databaseUrl('mysql://root@127.0.0.1:3306', 'bench_x')).toBe('mysql://root@127.0.0.1:3306/bench_x');
  });

  test('keeps a socket server URL query after the database, with the store options', () => {
    const url = new URL(databaseUrl('mysql://root@localhost?socketPath=/run/mysqld/mysqld.sock', 'bench_x', 'poolSize=4'));
    expect(url.pathname).toBe('/bench_x');
    expect(url.searchParams.get('socketPath')).toBe('/run/mysqld/mysqld.sock');
    expect(url.searchParams.get('poolSize')).toBe('4');
  });
});
