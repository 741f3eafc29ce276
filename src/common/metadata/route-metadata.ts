import { Injectable, Module } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/** A handler or a controller class, as Reflector takes them. */
type Target = Parameters<Reflector['get']>[1];

/**
 * Nest's Reflector, remembering what it has read. Route metadata is written by decorators
 * when the classes load and never changes afterwards, yet the global guards read it on
 * every request (@nestjs/throttler alone reads six keys of the handler and of its class per
 * window): after the first request of a route, each read is a map look-up instead of
 * reflect-metadata's walk of the target's prototype chain. Reflector's other reads
 * (`getAllAndOverride`, `getAll`, `getAllAndMerge`) go through `get`.
 */
@Injectable()
export class RouteMetadata extends Reflector {
  private readonly values = new WeakMap<Target, Map<unknown, unknown>>();

  override get<TResult = unknown>(metadataKey: unknown, target: Target): TResult {
    let values = this.values.get(target);
    if (!values) {
      values = new Map();
      this.values.set(target, values);
    }
    if (!values.has(metadataKey)) values.set(metadataKey, super.get(metadataKey, target));
    return values.get(metadataKey) as TResult;
  }
}

/** Imported by each module whose guards or interceptors read route metadata: one instance. */
@Module({ providers: [RouteMetadata], exports: [RouteMetadata] })
export class RouteMetadataModule {}
