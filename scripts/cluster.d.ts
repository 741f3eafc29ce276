// Types of scripts/cluster.js for the cluster test suite (test/cluster/), which drives it.
export interface ClusterOptions {
  /** nginx's port: 8080 unless given; 0 for a free one. */
  port?: number;
  pgbouncerPort?: number;
  instancePorts?: number[];
  databaseUrl?: string;
  /** Drops the database and creates it again before starting (`--fresh`). */
  fresh?: boolean;
  redisUrl?: string;
  adminPassword?: string;
  /**
   * Whether nginx's upstream list follows the instances' readiness (true unless given);
   * false leaves nginx alone: the instances' drain alone must lose no request.
   */
  followReadiness?: boolean;
  /** More variables for the instances. */
  env?: Record<string, string>;
  /** Whether `stop()` leaves the logs folder (the CLI's choice); false unless given. */
  keepLogs?: boolean;
  /**
   * Gets a line each time an instance is taken out of nginx or put back, exits without being
   * asked to, or is started again; console.log by default.
   */
  log?: (line: string) => void;
}

export interface ClusterInstance {
  index: number;
  port: number;
  url: string;
  /** In nginx's upstream list: the readiness watcher keeps it equal to /health/ready. */
  up: boolean;
  /** What each migration step before a start printed. */
  migrations: string[];
  /** Its process, while it runs. */
  readonly pid: number | undefined;
  /** Where its output (and its migration steps') is appended. */
  logFile: string;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Cluster {
  url: string;
  port: number;
  pgbouncerPort: number;
  redisUrl: string;
  redisStarted: boolean;
  databaseUrl: string;
  adminPassword: string;
  /** Whether the database had its admin before this start (adminPassword then changed nothing). */
  adminExisted: boolean;
  dir: string;
  /** instance-<n>.log, nginx-access.log, nginx-error.log, pgbouncer.log (and redis.log). */
  logsDir: string;
  instances: ClusterInstance[];
  stopInstance(index: number): Promise<Exit>;
  startInstance(index: number): Promise<void>;
  restartInstance(index: number): Promise<Exit>;
  killInstance(index: number): Promise<Exit>;
  logs(index: number): string[];
  stop(): Promise<void>;
}

export function startCluster(options?: ClusterOptions): Promise<Cluster>;
export function missingBinaries(names?: string[]): string | undefined;
export function ensureBuilt(log?: (line: string) => void): void;
export function freePort(): Promise<number>;
export function renderNginxConfig(template: string, values: Record<string, string>): string;
