import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { ClsPluginTransactional, TransactionHost } from '@nestjs-cls/transactional';
import { ClsModule } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import { PreparedStatements } from './prepared-statements.js';
import {
  afterCommit,
  GatheredStatements,
  gatherUntilCommit,
  TypeOrmTransactions,
  type Statement,
  type TxHost,
} from './transactions.js';

// A real database, in memory, behind one connection as the embedded one: joined transactions
// must not wait for a second one.
describe(TypeOrmTransactions.name, () => {
  let db: PGlite;
  let server: PGLiteSocketServer;
  let dataSource: DataSource;
  let app: TestingModule;
  let sut: TxHost;

  const count = async () =>
    (await dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM notes'))[0].n;

  beforeAll(async () => {
    db = await PGlite.create();
    server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
    await server.start();
    dataSource = await new DataSource({
      type: 'postgres',
      url: `postgres://postgres@${server.getServerConn()}/postgres`,
      extra: { max: 1 },
    }).initialize();
    await dataSource.query('CREATE TABLE notes (text text NOT NULL)');

    @Module({ providers: [{ provide: DataSource, useValue: dataSource }], exports: [DataSource] })
    class DataSourceModule {}

    app = await Test.createTestingModule({
      imports: [
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [DataSourceModule],
              adapter: new TypeOrmTransactions({ dataSourceToken: DataSource }),
            }),
          ],
        }),
      ],
    }).compile();
    sut = app.get(TransactionHost);
  }, 180_000); // a new database's first start takes long on a loaded machine

  afterAll(async () => {
    await app.close();
    await dataSource.destroy();
    await server.stop();
    await db.close();
  });

  beforeEach(() => dataSource.query('TRUNCATE notes'));

  const insert = (text: string) => sut.tx.query('INSERT INTO notes (text) VALUES ($1)', [text]);

  it('should run the work once the transaction has committed, in order', async () => {
    const seen: string[] = [];

    const result = await sut.withTransaction(async () => {
      await insert('a');
      afterCommit(async () => seen.push(`first saw ${await count()}`));
      afterCommit(() => seen.push('second'));
      seen.push('in the transaction');
      return 'done';
    });

    expect(result).toBe('done');
    expect(seen).toEqual(['in the transaction', 'first saw 1', 'second']);
  });

  it('should run the work outside the transaction that committed, its queries on the pool', async () => {
    const seen: unknown[] = [];

    await sut.withTransaction(async () => {
      await insert('in');
      afterCommit(async () => {
        seen.push(sut.isTransactionActive());
        await insert('after');
        await sut.withTransaction(() => insert('in another'));
      });
    });

    expect(seen).toEqual([false]);
    expect(await count()).toBe(3);
  });

  it('should not run the work when the transaction rolls back', async () => {
    const work = jest.fn();

    await expect(
      sut.withTransaction(async () => {
        await insert('a');
        afterCommit(work);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');

    expect(work).not.toHaveBeenCalled();
    expect(await count()).toBe(0);
  });

  it('should join the transaction in progress, and run its work after the outer commit', async () => {
    const seen: string[] = [];

    await sut.withTransaction(async () => {
      await insert('outer');
      await sut.withTransaction(async () => {
        await insert('inner');
        afterCommit(async () => seen.push(`after commit saw ${await count()}`));
      });
      seen.push('inner returned');
    });

    expect(seen).toEqual(['inner returned', 'after commit saw 2']);
  });

  it('should roll back the joined work with the transaction it joined', async () => {
    const work = jest.fn();

    await expect(
      sut.withTransaction(async () => {
        await sut.withTransaction(async () => {
          await insert('inner');
          afterCommit(work);
        });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');

    expect(work).not.toHaveBeenCalled();
    expect(await count()).toBe(0);
  });

  it('should refuse work registered outside a transaction', () => {
    expect(() => afterCommit(jest.fn())).toThrow('afterCommit() outside a transaction');
    expect(() => gatherUntilCommit({}, () => [], jest.fn<() => Promise<void>>())).toThrow(
      'gatherUntilCommit() outside a transaction',
    );
    const statements = new GatheredStatements(sut, new PreparedStatements(true));
    expect(() => statements.gather({}, () => [], jest.fn<() => undefined>())).toThrow(
      'gatherUntilCommit() outside a transaction',
    );
  });

  describe('gatherUntilCommit', () => {
    const key = {};
    /** Gathers `text` to insert with the others of the transaction, in one statement. */
    const gather = (text: string) =>
      gatherUntilCommit<string[]>(
        key,
        () => [],
        async (texts) => {
          await sut.tx.query('INSERT INTO notes (text) SELECT unnest($1::text[])', [texts]);
          afterCommit(async () => seen.push(`after commit saw ${await count()}`));
        },
      ).push(text);
    let seen: string[];
    beforeEach(() => {
      seen = [];
    });

    it('should write what the transaction and the ones it joined gathered, once, before it commits', async () => {
      await sut.withTransaction(async () => {
        gather('a');
        await sut.withTransaction(() => Promise.resolve(gather('b')));
        const [{ n }] = await sut.tx.query<{ n: number }[]>('SELECT count(*)::int AS n FROM notes');
        seen.push(`the work saw ${n}`);
      });

      expect(seen).toEqual(['the work saw 0', 'after commit saw 2']);
      expect(await dataSource.query('SELECT text FROM notes')).toEqual([
        { text: 'a' },
        { text: 'b' },
      ]);
    });

    it('should gather apart in each transaction', async () => {
      await sut.withTransaction(() => Promise.resolve(gather('first')));
      await sut.withTransaction(() => Promise.resolve(gather('second')));

      expect(seen).toEqual(['after commit saw 1', 'after commit saw 2']);
    });

    it('should write nothing of a transaction that rolls back', async () => {
      await expect(
        sut.withTransaction(async () => {
          await insert('the change');
          gather('a');
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');

      expect(seen).toEqual([]);
      expect(await count()).toBe(0);
    });

    it('should roll the transaction back when the write fails', async () => {
      await expect(
        sut.withTransaction(async () => {
          await insert('the change');
          gatherUntilCommit(
            {},
            () => undefined,
            () => sut.tx.query('SELECT 1 / 0'),
          );
        }),
      ).rejects.toThrow('division by zero');

      expect(await count()).toBe(0);
    });
  });
  describe(GatheredStatements.name, () => {
    /** The texts run, in order. */
    let ran: string[];
    let statements: GatheredStatements;
    beforeEach(() => {
      ran = [];
      const prepared = new PreparedStatements(true);
      statements = new GatheredStatements(sut, {
        query: (manager, sql, params) => {
          ran.push(sql);
          return prepared.query(manager, sql, params);
        },
      } as PreparedStatements);
    });

    const INSERT_NOTES = 'INSERT INTO notes (text) SELECT unnest($1::text[]) RETURNING text';
    /** Gathers `texts` under `key`, written by one INSERT that answers them to `written`. */
    const gatherNotes = (
      key: object,
      texts: string[],
      written?: (rows: { text: string }[]) => void,
    ) =>
      statements
        .gather<string[], { text: string }>(
          key,
          () => [],
          (gathered) => ({ sql: INSERT_NOTES, params: [gathered] }),
          written,
        )
        .push(...texts);
    /** Gathers `statement` under a key of its own. */
    const gatherStatement = (statement: Statement, written?: (rows: unknown[]) => void) =>
      statements.gather(
        {},
        () => statement,
        (gathered) => gathered,
        written,
      );
    const notes = async () =>
      (await dataSource.query<{ text: string }[]>('SELECT text FROM notes ORDER BY text')).map(
        (row) => row.text,
      );

    it("should run a lone gatherer's statement as it is, once the work has returned, and hand it its rows", async () => {
      const key = {};
      const written: unknown[] = [];
      const seen: number[] = [];

      await sut.withTransaction(async () => {
        gatherNotes(key, ['a'], (rows) => written.push(rows));
        await sut.withTransaction(() => Promise.resolve(gatherNotes(key, ['b'])));
        const [{ n }] = await sut.tx.query<{ n: number }[]>('SELECT count(*)::int AS n FROM notes');
        seen.push(n);
      });

      expect(seen).toEqual([0]);
      expect(ran).toEqual([INSERT_NOTES]);
      expect(written).toEqual([[{ text: 'a' }, { text: 'b' }]]);
      expect(await notes()).toEqual(['a', 'b']);
    });

    it("should run several gatherers' statements as one, parameters renumbered, each handed its own rows", async () => {
      const written: Record<string, unknown> = {};

      await sut.withTransaction(() => {
        gatherNotes({}, ['a'], (rows) => (written.first = rows));
        gatherStatement(
          {
            sql: `INSERT INTO notes (text) VALUES ($2::text || '$1'), ($1) RETURNING text`,
            params: ['y', 'x'],
          },
          (rows) => (written.second = rows),
        );
        gatherStatement({ sql: 'INSERT INTO notes (text) VALUES ($1)', params: ['z'] });
        gatherNotes({}, [], (rows) => (written.none = rows));
        return Promise.resolve();
      });

      expect(ran).toHaveLength(1);
      expect(ran[0]).toMatch(/^WITH /);
      expect(written).toEqual({
        first: [{ text: 'a' }],
        second: [{ text: 'x$1' }, { text: 'y' }],
        none: [],
      });
      expect(await notes()).toEqual(['a', 'x$1', 'y', 'z']);
    });

    it('should run statements whose rows no gatherer wants as one, and none for nothing to write', async () => {
      await sut.withTransaction(() => {
        statements.gather(
          {},
          () => [],
          () => undefined,
        );
        return Promise.resolve();
      });
      expect(ran).toEqual([]);

      await sut.withTransaction(() => {
        gatherStatement({ sql: 'INSERT INTO notes (text) VALUES ($1)', params: ['a'] });
        statements.gather(
          {},
          () => [],
          () => undefined,
        );
        gatherStatement({ sql: 'INSERT INTO notes (text) VALUES ($1)', params: ['b'] });
        return Promise.resolve();
      });

      expect(ran).toHaveLength(1);
      expect(await notes()).toEqual(['a', 'b']);
    });

    it('should roll back the work and every gathered write when the one statement fails', async () => {
      const written = jest.fn();

      await expect(
        sut.withTransaction(async () => {
          await insert('the change');
          gatherNotes({}, ['a'], written);
          gatherStatement({ sql: 'INSERT INTO notes (text) VALUES ($1)', params: [null] });
        }),
      ).rejects.toThrow('null value');

      expect(written).not.toHaveBeenCalled();
      expect(await count()).toBe(0);
    });
  });
});
