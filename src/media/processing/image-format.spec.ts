import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { sniffImageFormat } from './image-format.js';

const canvas = () =>
  sharp({ create: { width: 16, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } } });

describe(sniffImageFormat.name, () => {
  it('should recognise JPEG, PNG and GIF by their bytes', async () => {
    expect(sniffImageFormat(await canvas().jpeg().toBuffer())).toBe('jpeg');
    expect(sniffImageFormat(await canvas().png().toBuffer())).toBe('png');
    expect(sniffImageFormat(await canvas().gif().toBuffer())).toBe('gif');
  });

  it('should refuse other image formats', async () => {
    expect(sniffImageFormat(await canvas().webp().toBuffer())).toBeUndefined();
    expect(sniffImageFormat(await canvas().tiff().toBuffer())).toBeUndefined();
    expect(sniffImageFormat(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe(
      undefined,
    );
  });

  it('should refuse text and empty input', () => {
    expect(sniffImageFormat(Buffer.from('definitely not a picture'))).toBeUndefined();
    expect(sniffImageFormat(Buffer.alloc(0))).toBeUndefined();
    expect(sniffImageFormat(Buffer.from([0xff, 0xd8]))).toBeUndefined();
  });

  it('should refuse a PNG signature that is not followed by an IHDR chunk', () => {
    const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(sniffImageFormat(Buffer.concat([signature, Buffer.from('<script>')]))).toBe(undefined);
  });

  it('should refuse a JPEG start whose next byte is not a segment marker', () => {
    expect(sniffImageFormat(Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x10]))).toBeUndefined();
  });

  it('should refuse a PNG or GIF carrying another file after its end (a polyglot)', async () => {
    const archive = Buffer.from('PK\x03\x04 a zip archive riding along', 'latin1');
    const png = await canvas().png().toBuffer();
    const gif = await canvas().gif().toBuffer();
    expect(sniffImageFormat(Buffer.concat([png, archive]))).toBeUndefined();
    expect(sniffImageFormat(Buffer.concat([gif, archive]))).toBeUndefined();
  });

  it('should refuse a GIF header followed by script instead of GIF blocks', () => {
    const polyglot = Buffer.from('GIF89a/*\x00\x00\x00\x00\x00*/=alert(1);//', 'latin1');
    expect(sniffImageFormat(polyglot)).toBeUndefined();
  });

  it('should leave a truncated file of a known format to the decoder', async () => {
    const png = await canvas().png().toBuffer();
    const jpeg = await canvas().jpeg().toBuffer();
    expect(sniffImageFormat(png.subarray(0, png.length - 20))).toBe('png');
    expect(sniffImageFormat(jpeg.subarray(0, jpeg.length / 2))).toBe('jpeg');
  });
});
