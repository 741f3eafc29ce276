import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { getMetadataStorage } from 'class-validator';
import { load, loadAll } from 'js-yaml';
import { messageOf } from '../../src/common/errors/message-of.js';
import { EnvironmentVariables } from '../../src/config/env.schema.js';
import { HealthController } from '../../src/health/health.controller.js';

/**
 * What the manifest tests read, and each check as a function that returns its problems (an
 * empty list when the manifests keep the rule), so that the spec can show every check
 * failing on a broken copy as well as passing on the real files.
 */

export const MANIFEST_DIR = 'deploy/kubernetes';
export const KUSTOMIZATION = 'kustomization.yaml';

/** A Kubernetes object as read from YAML: typed loosely, checked by the schemas. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests are walked as loose JSON, the schemas check their shape
export type Loose = any;

/** A list field of a manifest (absent: empty), typed for array methods. */
export function list(value: Loose): Loose[] {
  return (value ?? []) as Loose[];
}

/** Every object in the folder, by file name, the kustomization aside. */
export function readManifests(dir = MANIFEST_DIR): Map<string, Manifest[]> {
  const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name) && name !== KUSTOMIZATION);
  return new Map(
    files.map((file) => [
      file,
      loadAll(readFileSync(join(dir, file), 'utf8')).filter(Boolean) as Manifest[],
    ]),
  );
}

export function readKustomization(dir = MANIFEST_DIR): Loose {
  return load(readFileSync(join(dir, KUSTOMIZATION), 'utf8'));
}

export function only(manifests: Map<string, Manifest[]>, kind: string): Loose {
  const found = [...manifests.values()].flat().filter((m) => m.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0];
}

/** The kustomization lists every manifest of the folder, and nothing that is not there. */
export function kustomizationProblems(kustomization: Loose, files: string[]): string[] {
  const listed = list(kustomization.resources) as string[];
  return [
    ...files.filter((file) => !listed.includes(file)).map((file) => `${file} is not listed`),
    ...listed.filter((file) => !files.includes(file)).map((file) => `${file} does not exist`),
  ];
}

/**
 * The object against the Kubernetes API schema of its apiVersion and kind, from the
 * kubernetes-models package (validators generated from Kubernetes' own OpenAPI document).
 * Alpha and beta versions are refused: they change or go away between releases.
 */
export async function schemaProblems(manifest: Manifest): Promise<string[]> {
  const { apiVersion, kind } = manifest;
  if (/\/v\d+(alpha|beta)\d+$/.test(apiVersion)) return [`${kind} uses ${apiVersion}, not GA`];
  let models: Record<string, unknown>;
  try {
    models = (await import(`kubernetes-models/${apiVersion}`)) as Record<string, unknown>;
  } catch {
    return [`no Kubernetes API ${apiVersion}`];
  }
  const Model = models[kind] as (new (data: unknown) => { validate(): void }) | undefined;
  if (typeof Model !== 'function') return [`no kind ${kind} in ${apiVersion}`];
  try {
    new Model(manifest).validate();
    return [];
  } catch (error) {
    return [`${kind} ${manifest.metadata?.name}: ${messageOf(error)}`];
  }
}

/** Every setting the service reads: the properties of its one environment schema. */
export function knownSettings(): Set<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
      .map((metadata) => metadata.propertyName),
  );
}

/** The variables a ConfigMap or Secret carries. */
export function keysOf(configOrSecret: Loose): string[] {
  return [
    ...Object.keys(configOrSecret.data ?? {}),
    ...Object.keys(configOrSecret.stringData ?? {}),
  ];
}

/** The settings a ConfigMap or Secret carries, decoded. */
export function valuesOf(configOrSecret: Loose): Record<string, string> {
  const decoded = Object.fromEntries(
    Object.entries<string>(configOrSecret.data ?? {}).map(([key, value]) => [
      key,
      configOrSecret.kind === 'Secret' ? Buffer.from(value, 'base64').toString('utf8') : value,
    ]),
  );
  return { ...decoded, ...configOrSecret.stringData };
}

export function unknownSettings(names: string[], known = knownSettings()): string[] {
  return names.filter((name) => !known.has(name)).map((name) => `${name} is no setting`);
}

/** The pod spec of a Deployment or a Job. */
export function podSpec(workload: Loose): Loose {
  return workload.spec.template.spec;
}

/**
 * The environment a container starts with, in Kubernetes' order: envFrom sources (later
 * ones win), then env entries; only what the given ConfigMap and Secret hold is known.
 */
export function containerEnv(
  container: Loose,
  configMap: Loose,
  secret: Loose,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of list(container.envFrom)) {
    if (source.configMapRef?.name === configMap.metadata.name) {
      Object.assign(env, valuesOf(configMap));
    } else if (source.secretRef?.name === secret.metadata.name) {
      Object.assign(env, valuesOf(secret));
    } else {
      throw new Error(
        `envFrom names neither ${configMap.metadata.name} nor ${secret.metadata.name}`,
      );
    }
  }
  for (const entry of list(container.env)) env[entry.name] = entry.value;
  return env;
}

/** The service's probe routes, read from the health controller's own route metadata. */
export function healthRoutes(): { live: string; ready: string } {
  const base = Reflect.getMetadata(PATH_METADATA, HealthController) as string;
  // Nest keeps a route's path on its handler function.
  const route = (method: 'live' | 'ready'): string => {
    const handler = Object.getOwnPropertyDescriptor(HealthController.prototype, method)!;
    return `/${base}/${Reflect.getMetadata(PATH_METADATA, handler.value as object) as string}`;
  };
  return { live: route('live'), ready: route('ready') };
}

/** A named or numbered container port, as a number. */
export function portNumber(container: Loose, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  return list(container.ports).find((p) => p.name === port)?.containerPort;
}

/** Probe paths and ports against the service's routes and listening port. */
export function probeProblems(container: Loose, servicePort: number): string[] {
  const routes = healthRoutes();
  const expected = {
    startupProbe: routes.live,
    livenessProbe: routes.live,
    readinessProbe: routes.ready,
  };
  return Object.entries(expected).flatMap(([probeName, path]) => {
    const httpGet = container[probeName]?.httpGet;
    if (!httpGet) return [`${probeName} is missing or not an HTTP GET`];
    const problems: string[] = [];
    if (httpGet.path !== path) problems.push(`${probeName} asks ${httpGet.path}, not ${path}`);
    const port = portNumber(container, httpGet.port);
    if (port !== servicePort) problems.push(`${probeName} port is ${port}, not ${servicePort}`);
    return problems;
  });
}

/** Seconds of a preStop hook that sleeps: the native sleep action, or `sleep N` run. */
export function preStopSeconds(container: Loose): number | undefined {
  const preStop = container.lifecycle?.preStop;
  if (preStop?.sleep) return Number(preStop.sleep.seconds);
  const command: string[] | undefined = preStop?.exec?.command;
  if (command?.length === 2 && command[0] === 'sleep') return Number(command[1]);
  return undefined;
}

/**
 * On deletion the pod leaves the Service's endpoints while the preStop sleep runs; SIGTERM
 * comes after it. The service then stays not ready but serving for SHUTDOWN_DRAIN_MS, long
 * enough for the readiness probe to fail (when SIGTERM comes without a deletion, as on a
 * restart by the kubelet, readiness is what takes the pod out), and exits by itself within
 * SHUTDOWN_TIMEOUT_MS plus its close margin (src/shutdown/shutdown-signals.ts): the grace
 * period must outlast all four, or the kubelet kills requests still draining.
 */
export function drainProblems(
  pod: Loose,
  container: Loose,
  shutdown: { drainMs: number; timeoutMs: number },
  closeMarginMs: number,
): string[] {
  const sleep = preStopSeconds(container);
  if (sleep === undefined || !(sleep > 0)) return ['no preStop sleep'];
  const probe = container.readinessProbe;
  if (!probe) return ['no readinessProbe'];
  const problems: string[] = [];
  // Kubernetes' defaults: every 10 s, 3 failures.
  const period = probe.periodSeconds ?? 10;
  const threshold = probe.failureThreshold ?? 3;
  if (shutdown.drainMs < period * threshold * 1000) {
    problems.push(
      `SHUTDOWN_DRAIN_MS ${shutdown.drainMs / 1000} s is shorter than the readiness probe takes to fail: ${period} s x ${threshold}`,
    );
  }
  const parts = [sleep, shutdown.drainMs / 1000, shutdown.timeoutMs / 1000, closeMarginMs / 1000];
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  if (!(grace > parts.reduce((sum, part) => sum + part, 0))) {
    problems.push(
      `terminationGracePeriodSeconds ${grace} is not above preStop ${parts[0]} s + SHUTDOWN_DRAIN_MS ${parts[1]} s + SHUTDOWN_TIMEOUT_MS ${parts[2]} s + close margin ${parts[3]} s`,
    );
  }
  return problems;
}

/** The close margin, read from the shutdown code so that no second copy can drift. */
export function closeMarginMs(): number {
  const source = readFileSync('src/shutdown/shutdown-signals.ts', 'utf8');
  const match = /const CLOSE_MARGIN_MS = ([\d_]+);/.exec(source);
  if (!match) throw new Error('CLOSE_MARGIN_MS not found in src/shutdown/shutdown-signals.ts');
  return Number(match[1].replaceAll('_', ''));
}

/** Whether a label selector's matchLabels all hold on the given labels. */
export function selects(selector: Loose, labels: Record<string, string>): boolean {
  const matchLabels: Record<string, string> = selector?.matchLabels ?? selector ?? {};
  const entries = Object.entries(matchLabels);
  return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

/**
 * Behind TRUST_PROXY the pods believe X-Forwarded-For, so only the proxies may reach them: the
 * policy selects the pods, restricts their ingress, and admits each connection only from a
 * named namespace's named pods (no rule without `from`, no address block, no empty
 * selector), on the pods' own port.
 */
export function networkPolicyProblems(
  policy: Loose,
  podLabels: Record<string, string>,
  port: number | string,
): string[] {
  const problems: string[] = [];
  if (!selects(policy.spec.podSelector, podLabels)) problems.push('does not select the pods');
  if (!list(policy.spec.policyTypes).includes('Ingress')) problems.push('restricts no ingress');
  for (const [i, rule] of list(policy.spec.ingress).entries()) {
    const peers = list(rule.from);
    if (peers.length === 0) problems.push(`rule ${i} admits every source`);
    for (const peer of peers) {
      if (!hasLabels(peer.namespaceSelector)) {
        problems.push(`rule ${i} admits a peer without a namespace`);
      }
      if (!hasLabels(peer.podSelector)) problems.push(`rule ${i} admits a peer without pod labels`);
    }
    const ports = list(rule.ports);
    if (ports.length === 0 || ports.some((entry) => entry.port !== port)) {
      problems.push(`rule ${i} opens another port than ${port}`);
    }
  }
  return problems;
}

const hasLabels = (selector: Loose) => Object.keys(selector?.matchLabels ?? {}).length > 0;

/**
 * The service listens only once migrations are applied, after waiting up to
 * MIGRATION_LOCK_TIMEOUT_MS for another process's lock: the startup probe must wait longer,
 * or a pod that waits its turn is restarted in a loop.
 */
export function startupProblems(container: Loose, migrationLockTimeoutMs: number): string[] {
  const probe = container.startupProbe;
  if (!probe) return ['no startupProbe'];
  const seconds = (probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3);
  return seconds > migrationLockTimeoutMs / 1000
    ? []
    : [`startupProbe gives up after ${seconds} s, within the migration lock wait`];
}

/** The user the image runs as (the last USER of docker/Dockerfile). */
export function dockerfileUser(): string | undefined {
  const users = [...readFileSync('docker/Dockerfile', 'utf8').matchAll(/^USER\s+(\S+)/gm)];
  return users.at(-1)?.[1];
}
