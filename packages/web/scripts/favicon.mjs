// The icon of both apps (a white key on the dashboard's blue), drawn here from a few shapes and
// written as a Windows icon file holding 16, 32 and 48 px PNG images: what browsers ask for at
// /favicon.ico and what each app's page links. Deterministic: the same bytes on every build.
import { crc32, deflateSync } from 'node:zlib';

const BLUE = [0x1d, 0x4e, 0xd8];
const WHITE = [0xff, 0xff, 0xff];

/** Inside a box with rounded corners (all in units of the icon's side). */
function inRoundedBox(x, y, x0, y0, x1, y1, r) {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/** The key: a ring, a shaft and two teeth. */
function inKey(x, y) {
  const d = (x - 0.33) ** 2 + (y - 0.5) ** 2;
  if (d <= 0.2 ** 2 && d >= 0.085 ** 2) return true;
  if (x >= 0.5 && x <= 0.84 && y >= 0.45 && y <= 0.55) return true;
  if (x >= 0.64 && x <= 0.71 && y >= 0.55 && y <= 0.68) return true;
  return x >= 0.76 && x <= 0.84 && y >= 0.55 && y <= 0.64;
}

/** RGBA pixels of the icon at `size` px, each the average of 4 x 4 samples. */
function pixels(size) {
  const out = Buffer.alloc(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let inside = 0;
      let key = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = (px + (sx + 0.5) / n) / size;
          const y = (py + (sy + 0.5) / n) / size;
          if (!inRoundedBox(x, y, 0, 0, 1, 1, 0.2)) continue;
          inside++;
          if (inKey(x, y)) key++;
        }
      }
      const o = (py * size + px) * 4;
      const white = inside === 0 ? 0 : key / inside;
      for (let c = 0; c < 3; c++) out[o + c] = Math.round(BLUE[c] * (1 - white) + WHITE[c] * white);
      out[o + 3] = Math.round((inside / (n * n)) * 255);
    }
  }
  return out;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG (8-bit RGBA, no filter) of the icon at `size` px. */
export function iconPng(size) {
  const rgba = pixels(size);
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The `.ico` file: a directory of PNG images (Windows Vista and every browser read PNG entries). */
export function faviconIco(sizes = [16, 32, 48]) {
  const images = sizes.map(iconPng);
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach((png, i) => {
    const e = 6 + 16 * i;
    header[e] = sizes[i] % 256; // 0 means 256
    header[e + 1] = sizes[i] % 256;
    header.writeUInt16LE(1, e + 4); // colour planes
    header.writeUInt16LE(32, e + 6); // bits per pixel
    header.writeUInt32LE(png.length, e + 8);
    header.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...images]);
}
