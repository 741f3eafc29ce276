import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { loadAll } from 'js-yaml';
import { validateEnv } from '../../src/config/env.schema.js';
import { isExampleSecret } from '../../src/config/example-secrets.js';
import { createTestDatabase } from '../support/test-database.js';
import {
  closeMarginMs,
  containerEnv,
  dockerfileUser,
  drainProblems,
  keysOf,
  list,
  MANIFEST_DIR,
  kustomizationProblems,
  networkPolicyProblems,
  only,
  podSpec,
  portNumber,
  preStopSeconds,
  probeProblems,
  readKustomization,
  readManifests,
  schemaProblems,
  selects,
  startupProblems,
  unknownSettings,
  type Loose,
  type Manifest,
} from './kubernetes-manifests.js';

const run = promisify(execFile);
const kubectl = ['/usr/local/bin/kubectl', '/usr/bin/kubectl'].find((path) => existsSync(path));
if (!kubectl) console.warn('kubectl not found: the kustomize rendering test is skipped');

// The official Node images create their `node` user with this uid; the Dockerfile names the
// user, and the kubelet needs a number to check runAsNonRoot.
const IMAGE_USER_IDS: Record<string, number> = { node: 1000 };

/** A deep copy to break on purpose. */
const copy = <T>(value: T): Loose => structuredClone(value);

const manifests = readManifests();
const kustomization = readKustomization();
const configMap = only(manifests, 'ConfigMap');
const secret = only(manifests, 'Secret');
const deployment = only(manifests, 'Deployment');
const job = only(manifests, 'Job');
const service = only(manifests, 'Service');
const autoscaler = only(manifests, 'HorizontalPodAutoscaler');
const budget = only(manifests, 'PodDisruptionBudget');
const networkPolicy = only(manifests, 'NetworkPolicy');
const pod = podSpec(deployment);
const [api] = pod.containers;
const [migrator] = podSpec(job).containers;
// The example Secret with every placeholder replaced, as an operator does before the first
// apply: start-up refuses each of them in production. A key given in base64 (the MFA
// encryption key) holds its placeholder encoded, and is replaced by a key of its own length.
const filledSecret = copy(secret);
for (const [name, value] of Object.entries<string>(secret.stringData)) {
  filledSecret.stringData[name] = Buffer.from(value, 'base64')
    .toString('latin1')
    .startsWith('EXAMPLE-ONLY-')
    ? randomBytes(32).toString('base64')
    : value.replace('EXAMPLE-ONLY-change-me', randomBytes(32).toString('hex'));
}
// What the service makes of the environment the pods get: defaults filled in, values parsed.
const apiSettings = validateEnv(containerEnv(api, configMap, filledSecret));

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  describe('the kustomization', () => {
    it('should list every manifest of the folder, and nothing else', () => {
      expect(kustomizationProblems(kustomization, [...manifests.keys()])).toEqual([]);
      expect(
        kustomizationProblems({ resources: ['deployment.yaml', 'ingress.yaml'] }, [
          'deployment.yaml',
          'service.yaml',
        ]),
      ).toEqual(['service.yaml is not listed', 'ingress.yaml does not exist']);
    });

    // kubectl's own kustomize, where the machine has kubectl (it is no npm package).
    (kubectl ? it : it.skip)('should render with kubectl kustomize, the image set', async () => {
      const { stdout } = await run(kubectl!, ['kustomize', MANIFEST_DIR]);
      const rendered = loadAll(stdout) as Manifest[];
      const [{ newName, newTag }] = kustomization.images;
      expect(rendered.map((object) => object.kind).sort()).toEqual(
        [...manifests.values()]
          .flat()
          .map((object) => object.kind)
          .sort(),
      );
      expect(
        rendered
          .filter((object) => object.kind === 'Deployment' || object.kind === 'Job')
          .map((object) => podSpec(object).containers[0].image),
      ).toEqual([`${newName}:${newTag}`, `${newName}:${newTag}`]);
    });

    it('should name the image that the Deployment and the migration Job run', () => {
      expect(list(kustomization.images).map((image) => image.name)).toEqual([api.image]);
      expect(migrator.image).toBe(api.image);
    });
  });

  describe('the Kubernetes API schemas', () => {
    it('should hold one object per file, each valid for its apiVersion and kind', async () => {
      for (const [file, objects] of manifests) {
        expect({ file, count: objects.length }).toEqual({ file, count: 1 });
      }
      const objects = [...manifests.values()].flat();
      const problems = await Promise.all(objects.map((object) => schemaProblems(object)));
      expect(problems.flat()).toEqual([]);
    });

    it('should refuse an object that breaks its schema, an unknown kind and a beta API', async () => {
      const broken = copy(deployment);
      delete broken.spec.selector;
      broken.spec.template.spec.containers[0].imagePullPolicy = 'Sometimes';
      const [problem] = await schemaProblems(broken);
      expect(problem).toContain('must have required property selector');
      expect(problem).toContain('imagePullPolicy must be equal to one of the allowed values');

      const wrongKind: Manifest = { ...copy(deployment), kind: 'Deploymnet' };
      expect(await schemaProblems(wrongKind)).toEqual(['no kind Deploymnet in apps/v1']);
      const beta: Manifest = { ...copy(autoscaler), apiVersion: 'autoscaling/v2beta2' };
      expect(await schemaProblems(beta)).toEqual([
        'HorizontalPodAutoscaler uses autoscaling/v2beta2, not GA',
      ]);
      const unknownApi: Manifest = { ...copy(autoscaler), apiVersion: 'autoscaling/v9' };
      expect(await schemaProblems(unknownApi)).toEqual(['no Kubernetes API autoscaling/v9']);
    });
  });

  describe('probes and ports', () => {
    it("should probe the service's own health routes on the port it listens on", () => {
      expect(probeProblems(api, apiSettings.PORT)).toEqual([]);
    });

    it('should find a probe on the wrong route or port', () => {
      const swapped = copy(api);
      swapped.livenessProbe.httpGet.path = '/health/ready';
      swapped.readinessProbe.httpGet.port = 8080;
      delete swapped.startupProbe;
      expect(probeProblems(swapped, apiSettings.PORT)).toEqual([
        'startupProbe is missing or not an HTTP GET',
        'livenessProbe asks /health/ready, not /health/live',
        `readinessProbe port is 8080, not ${apiSettings.PORT}`,
      ]);
      expect(probeProblems(api, apiSettings.PORT + 1)).toHaveLength(3);
    });

    it('should send Service traffic to that port', () => {
      const targets = list(service.spec.ports).map((port) => portNumber(api, port.targetPort));
      expect(targets).toEqual([apiSettings.PORT]);
    });
  });

  describe('settings', () => {
    it('should use only variables that the service reads', () => {
      const names = [
        ...keysOf(configMap),
        ...keysOf(secret),
        ...[api, migrator].flatMap((c) => list(c.env).map((e) => e.name as string)),
      ];
      expect(unknownSettings(names)).toEqual([]);
      expect(unknownSettings(['SHUTDOWN_TIMEOUT_MS', 'SHUTDOWN_TIMEOUT'])).toEqual([
        'SHUTDOWN_TIMEOUT is no setting',
      ]);
    });

    it('should start both containers with a configuration the service accepts', () => {
      expect(() => validateEnv(containerEnv(migrator, configMap, filledSecret))).not.toThrow();
      const badConfig = copy(configMap);
      badConfig.data.SHUTDOWN_TIMEOUT_MS = '15s';
      expect(() => validateEnv(containerEnv(api, badConfig, filledSecret))).toThrow(
        /SHUTDOWN_TIMEOUT_MS/,
      );
    });

    it('should refuse to start on the example Secret as it stands', () => {
      for (const container of [api, migrator]) {
        // The S3 key id names the key: it is no secret, and its placeholder fails at S3.
        for (const name of keysOf(secret).filter((key) => key !== 'S3_ACCESS_KEY_ID')) {
          expect(() => validateEnv(containerEnv(container, configMap, secret))).toThrow(
            new RegExp(`${name}: is an example value published with the service`),
          );
        }
      }
    });

    it('should mark every value of the example Secret as an example', () => {
      const values = Object.entries<string>(secret.stringData);
      // As the service reads them: a base64 key holds its placeholder encoded.
      expect(values.filter(([, value]) => !isExampleSecret(value))).toEqual([]);
    });
  });

  describe('rollouts and shutdown', () => {
    it('should outlast the preStop sleep, the drain, the requests in flight and the close margin before SIGKILL', () => {
      const shutdown = {
        drainMs: apiSettings.SHUTDOWN_DRAIN_MS,
        timeoutMs: apiSettings.SHUTDOWN_TIMEOUT_MS,
      };
      expect(drainProblems(pod, api, shutdown, closeMarginMs())).toEqual([]);
      // The arithmetic as docs/operations.md tells it: 5 + 10 + 15 + 5 = 35 < 45.
      expect({
        preStop: preStopSeconds(api),
        drainMs: shutdown.drainMs,
        timeoutMs: shutdown.timeoutMs,
        closeMarginMs: closeMarginMs(),
        grace: pod.terminationGracePeriodSeconds,
      }).toEqual({
        preStop: 5,
        drainMs: 10_000,
        timeoutMs: 15_000,
        closeMarginMs: 5_000,
        grace: 45,
      });

      const sleeping = {
        lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
        readinessProbe: { periodSeconds: 5, failureThreshold: 2 },
      };
      const usual = { drainMs: 10_000, timeoutMs: 15_000 };
      expect(drainProblems({ terminationGracePeriodSeconds: 35 }, sleeping, usual, 5_000)).toEqual([
        'terminationGracePeriodSeconds 35 is not above preStop 5 s + SHUTDOWN_DRAIN_MS 10 s + SHUTDOWN_TIMEOUT_MS 15 s + close margin 5 s',
      ]);
      expect(drainProblems({}, sleeping, usual, 5_000)).toEqual([
        'terminationGracePeriodSeconds 30 is not above preStop 5 s + SHUTDOWN_DRAIN_MS 10 s + SHUTDOWN_TIMEOUT_MS 15 s + close margin 5 s',
      ]);
      const nativeSleep = { ...sleeping, lifecycle: { preStop: { sleep: { seconds: 20 } } } };
      expect(
        drainProblems({ terminationGracePeriodSeconds: 50 }, nativeSleep, usual, 5_000),
      ).toEqual([
        'terminationGracePeriodSeconds 50 is not above preStop 20 s + SHUTDOWN_DRAIN_MS 10 s + SHUTDOWN_TIMEOUT_MS 15 s + close margin 5 s',
      ]);
      expect(drainProblems(pod, { ...sleeping, lifecycle: {} }, usual, 5_000)).toEqual([
        'no preStop sleep',
      ]);
      const generous = { terminationGracePeriodSeconds: 120 };
      expect(drainProblems(generous, sleeping, { ...usual, drainMs: 5_000 }, 5_000)).toEqual([
        'SHUTDOWN_DRAIN_MS 5 s is shorter than the readiness probe takes to fail: 5 s x 2',
      ]);
      expect(drainProblems(generous, { lifecycle: sleeping.lifecycle }, usual, 5_000)).toEqual([
        'no readinessProbe',
      ]);
    });

    it('should let a starting pod wait out the migration lock', () => {
      expect(startupProblems(api, apiSettings.MIGRATION_LOCK_TIMEOUT_MS)).toEqual([]);
      const impatient = { startupProbe: { periodSeconds: 5, failureThreshold: 24 } };
      expect(startupProblems(impatient, 120_000)).toEqual([
        'startupProbe gives up after 120 s, within the migration lock wait',
      ]);
      expect(startupProblems({}, 120_000)).toEqual(['no startupProbe']);
    });

    it('should roll out without losing capacity and leave the replica count to the autoscaler', () => {
      expect({
        strategy: deployment.spec.strategy.type,
        maxUnavailable: deployment.spec.strategy.rollingUpdate.maxUnavailable,
        replicas: deployment.spec.replicas,
      }).toEqual({ strategy: 'RollingUpdate', maxUnavailable: 0, replicas: undefined });
    });
  });

  describe('the pod', () => {
    it("should run as the image's non-root user on a read-only root file system", () => {
      const user = dockerfileUser();
      expect(user).toBe('node');
      expect({
        runAsNonRoot: pod.securityContext.runAsNonRoot,
        runAsUser: pod.securityContext.runAsUser,
        readOnlyRootFilesystem: api.securityContext.readOnlyRootFilesystem,
        allowPrivilegeEscalation: api.securityContext.allowPrivilegeEscalation,
        capabilities: api.securityContext.capabilities,
        automountServiceAccountToken: pod.automountServiceAccountToken,
      }).toEqual({
        runAsNonRoot: true,
        runAsUser: IMAGE_USER_IDS[user!],
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        automountServiceAccountToken: false,
      });
    });

    it('should give /tmp and the data directory writable emptyDir volumes', () => {
      const emptyDirs = new Set(
        list(pod.volumes)
          .filter((v) => v.emptyDir)
          .map((v) => v.name as string),
      );
      const writable = list(api.volumeMounts)
        .filter((mount) => emptyDirs.has(mount.name) && !mount.readOnly)
        .map((mount) => mount.mountPath as string);
      expect(writable.sort()).toEqual(['/tmp', apiSettings.DATA_DIR].sort());
    });

    it('should request and cap CPU and memory', () => {
      for (const container of [api, migrator]) {
        const { requests, limits } = container.resources;
        expect(Object.keys(requests).sort()).toEqual(['cpu', 'memory']);
        expect(Object.keys(limits).sort()).toEqual(['cpu', 'memory']);
      }
    });

    it("should spread the Deployment's own pods over nodes and zones", () => {
      const labels = deployment.spec.template.metadata.labels;
      const constraints = list(pod.topologySpreadConstraints).map((c) => ({
        topologyKey: c.topologyKey,
        selectsPods: selects(c.labelSelector, labels),
      }));
      expect(constraints).toEqual([
        { topologyKey: 'kubernetes.io/hostname', selectsPods: true },
        { topologyKey: 'topology.kubernetes.io/zone', selectsPods: true },
      ]);
    });
  });

  describe('Service, autoscaler, disruption budget and network policy', () => {
    const labels = deployment.spec.template.metadata.labels;

    it("should select the Deployment's pods, and no other", () => {
      expect(selects(deployment.spec.selector, labels)).toBe(true);
      expect(selects(service.spec.selector, labels)).toBe(true);
      expect(selects(budget.spec.selector, labels)).toBe(true);
      expect(selects(service.spec.selector, job.spec.template.metadata.labels)).toBe(false);
      expect(selects({ matchLabels: {} }, labels)).toBe(false);
    });

    it('should scale the Deployment on CPU and scale down slowly', () => {
      expect(autoscaler.spec.scaleTargetRef).toEqual({
        apiVersion: deployment.apiVersion,
        kind: 'Deployment',
        name: deployment.metadata.name,
      });
      expect(list(autoscaler.spec.metrics).map((m) => m.resource.name)).toEqual(['cpu']);
      expect(api.resources.requests.cpu).toBeDefined();
      expect(autoscaler.spec.behavior.scaleDown.stabilizationWindowSeconds).toBeGreaterThan(0);
    });

    it('should never let evictions take every pod', () => {
      expect(budget.spec.maxUnavailable).toBeLessThan(autoscaler.spec.minReplicas);
    });

    it('should admit connections to the pods only from named proxies, on their port', () => {
      const port = api.ports[0].name;
      expect(networkPolicyProblems(networkPolicy, labels, port)).toEqual([]);
      const open = copy(networkPolicy);
      const [rule] = list(open.spec.ingress);
      open.spec.ingress = [
        {
          from: [...list(rule.from), { ipBlock: { cidr: '0.0.0.0/0' } }],
          ports: [...list(rule.ports), { port: 9229 }],
        },
        { ports: [{ port }] },
      ];
      open.spec.podSelector = { matchLabels: { app: 'other' } };
      expect(networkPolicyProblems(open, labels, port)).toEqual([
        'does not select the pods',
        'rule 0 admits a peer without a namespace',
        'rule 0 admits a peer without pod labels',
        'rule 0 opens another port than http',
        'rule 1 admits every source',
      ]);
      expect(networkPolicyProblems({ spec: { podSelector: {} } }, labels, port)).toEqual([
        'does not select the pods',
        'restricts no ingress',
      ]);
    });
  });

  describe('the migration Job', () => {
    it('should apply every pending migration once, with the built service, then none', async () => {
      const [program, ...args] = migrator.args as string[];
      expect(program).toBe('node');
      // The migrations the sources hold, as TypeORM names them: `<Name><timestamp>`.
      const expected = readdirSync('src/database/migrations')
        .sort()
        .map((file) => /^(\d+)-(\w+)\.ts$/.exec(file))
        .filter((match) => match !== null)
        .map(([, timestamp, name]) => `${name}${timestamp}`);
      // A fresh database: an empty one on DATABASE_URL's server, else the embedded one in
      // an empty data directory.
      const database = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
      const dataDir = await mkdtemp(join(tmpdir(), 'petstore-migrate-job-'));
      const env: Record<string, string> = {
        PATH: process.env.PATH!,
        ...containerEnv(migrator, configMap, filledSecret),
        DATA_DIR: dataDir,
      };
      if (database) env.DATABASE_URL = database.env.DATABASE_URL;
      else {
        delete env.DATABASE_URL;
        env.ALLOW_EMBEDDED_DATABASE = 'true';
      }
      // The image's WORKDIR holds dist/ and node_modules/, as the repository root does here.
      const migrate = () => run(process.execPath, args, { env, timeout: 60_000 });
      try {
        expect((await migrate()).stdout.trim()).toBe(`Applied migrations: ${expected.join(', ')}`);
        expect((await migrate()).stdout.trim()).toBe('No pending migrations');
      } finally {
        await database?.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    }, 120_000);

    it('should run before the pods need it, not restart in place, and take no token', () => {
      expect({
        restartPolicy: podSpec(job).restartPolicy,
        automountServiceAccountToken: podSpec(job).automountServiceAccountToken,
        envFrom: migrator.envFrom,
      }).toEqual({
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        envFrom: api.envFrom,
      });
    });
  });
});
