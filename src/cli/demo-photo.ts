import sharp from 'sharp';

const WIDTH = 320;
const HEIGHT = 240;
const INK = [59, 42, 30];

/** A paw print: the pad and four toes, as ellipses `[cx, cy, rx, ry]` around (160, 120). */
const PAW: [number, number, number, number][] = [
  [0, 20, 42, 34],
  [-48, -28, 14, 19],
  [-18, -48, 14, 19],
  [18, -48, 14, 19],
  [48, -28, 14, 19],
];

/**
 * A small JPEG for a demo pet: a paw print on its category's colour, placed and lit by the
 * pet's number so that no two neighbours look alike. The pixels are computed here (sharp's
 * build may lack an SVG renderer) and encoded by sharp, then uploaded like any photo.
 */
export function demoPhoto(i: number, colour: string): Promise<Buffer> {
  const background = [1, 3, 5].map((at) => parseInt(colour.slice(at, at + 2), 16));
  const dx = ((i * 53) % 120) - 60;
  const dy = ((i * 29) % 60) - 30;
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y += 1) {
    for (let x = 0; x < WIDTH; x += 1) {
      const inPaw = PAW.some(
        ([cx, cy, rx, ry]) =>
          ((x - 160 - dx - cx) / rx) ** 2 + ((y - 120 - dy - cy) / ry) ** 2 <= 1,
      );
      // A soft light from the top left, so the photo is not flat.
      const light = 1.15 - (x + y) / (WIDTH + HEIGHT) / 3;
      const rgb = inPaw ? INK : background.map((c) => Math.min(255, Math.round(c * light)));
      pixels.set(rgb, (y * WIDTH + x) * 3);
    }
  }
  return sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}
