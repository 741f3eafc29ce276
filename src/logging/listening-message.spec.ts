import { describe, expect, it } from '@jest/globals';
import { listeningMessage } from './listening-message.js';

describe(listeningMessage.name, () => {
  it.each([
    [
      '0.0.0.0',
      'IPv4',
      'Listening on http://0.0.0.0:3000 (every interface): API http://localhost:3000/v1, console http://localhost:3000/console, docs http://localhost:3000/docs',
    ],
    [
      '::',
      'IPv6',
      'Listening on http://[::]:3000 (every interface): API http://localhost:3000/v1, console http://localhost:3000/console, docs http://localhost:3000/docs',
    ],
    [
      '127.0.0.1',
      'IPv4',
      'Listening on http://127.0.0.1:3000: API http://127.0.0.1:3000/v1, console http://127.0.0.1:3000/console, docs http://127.0.0.1:3000/docs',
    ],
    [
      '::1',
      'IPv6',
      'Listening on http://[::1]:3000: API http://[::1]:3000/v1, console http://[::1]:3000/console, docs http://[::1]:3000/docs',
    ],
    [
      '192.168.1.20',
      'IPv4',
      'Listening on http://192.168.1.20:3000: API http://192.168.1.20:3000/v1, console http://192.168.1.20:3000/console, docs http://192.168.1.20:3000/docs',
    ],
  ])('should say where a server bound to %s (%s) listens', (address, family, message) => {
    expect(listeningMessage({ address, family, port: 3000 })).toBe(message);
  });
});
