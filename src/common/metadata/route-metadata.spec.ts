import { describe, expect, it } from '@jest/globals';
import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadata } from './route-metadata.js';

@SetMetadata('scope', 'class')
@SetMetadata('class-only', true)
class Controller {
  @SetMetadata('scope', 'handler')
  decorated(): void {}

  plain(): void {}
}

describe(RouteMetadata.name, () => {
  // Handlers as Nest's ExecutionContext.getHandler() gives them: the prototype's functions.
  const handler = (name: keyof Controller) =>
    Object.getOwnPropertyDescriptor(Controller.prototype, name)!.value as () => void;
  const [decorated, plain] = [handler('decorated'), handler('plain')];
  const reads = (reflector: Reflector) => [
    reflector.get('scope', decorated),
    reflector.get('scope', plain),
    reflector.getAllAndOverride('scope', [decorated, Controller]),
    reflector.getAllAndOverride('scope', [plain, Controller]),
    reflector.getAllAndOverride('class-only', [decorated, Controller]),
    reflector.getAllAndOverride('absent', [decorated, Controller]),
    reflector.getAll('scope', [decorated, Controller]),
  ];

  it('should read what Reflector reads, the handler before its class', () => {
    const expected = [
      'handler',
      undefined,
      'handler',
      'class',
      true,
      undefined,
      ['handler', 'class'],
    ];
    expect(reads(new Reflector())).toEqual(expected);
    expect(reads(new RouteMetadata())).toEqual(expected);
  });

  it('should answer a repeated read, an absent key among them, from what it read first', () => {
    const sut = new RouteMetadata();
    const first = reads(sut);
    const lookups: unknown[] = [];
    const getMetadata = Reflect.getMetadata.bind(Reflect);
    Reflect.getMetadata = (key: unknown, target: object) => {
      lookups.push(key);
      return getMetadata(key, target);
    };
    try {
      expect(reads(sut)).toEqual(first);
    } finally {
      Reflect.getMetadata = getMetadata;
    }
    expect(lookups).toEqual([]);
  });
});
