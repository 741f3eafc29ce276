// `nest g resource NAME`: a REST resource shaped like src/categories/ (PUT, ParseIdPipe,
// validated and documented DTOs, ApiErrors, a mapper, an entity, the repository that alone
// touches TypeORM), with its migration and an e2e spec, registered in app.module.ts,
// database/entities.ts and migrations/index.ts.
// Files are formatted with the project's Prettier settings, so `npm run check` passes as is.
'use strict';

const { strings } = require('@angular-devkit/core');
const { SchematicsException } = require('@angular-devkit/schematics');
const pluralize = require('pluralize');

const camel = (text) => strings.camelize(text);

function namesOf(name) {
  const plural = strings.dasherize(pluralize.plural(name));
  const singular = pluralize.singular(plural);
  return {
    plural, // owners, route and folder
    singular, // owner, file names
    Plural: strings.classify(plural), // Owners
    Singular: strings.classify(singular), // Owner
    table: strings.underscore(plural), // owners
    words: strings.dasherize(plural).replace(/-/g, ' '), // owners, for texts
    word: strings.dasherize(singular).replace(/-/g, ' '), // owner
    a: /^[aeiou]/.test(singular) ? 'an' : 'a',
  };
}

const module_ = (n) => `import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { ${n.Plural}Controller } from './${n.plural}.controller.js';
import { ${n.Plural}Repository } from './${n.plural}.repository.js';
import { ${n.Plural}Service } from './${n.plural}.service.js';

@Module({
  imports: [IdempotencyModule],
  controllers: [${n.Plural}Controller],
  providers: [${n.Plural}Service, ${n.Plural}Repository],
  exports: [${n.Plural}Service],
})
export class ${n.Plural}Module {}
`;

const entity = (
  n,
) => `import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: '${n.table}' })
export class ${n.Singular} {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
`;

const mapper = (n) => `import type { ${n.Singular} } from './${n.singular}.entity.js';
import { ${n.Singular}Response } from './dto/${n.singular}-response.dto.js';

export function to${n.Singular}Response(${camel(n.singular)}: ${n.Singular}): ${n.Singular}Response {
  return { id: ${camel(n.singular)}.id, name: ${camel(n.singular)}.name };
}
`;

const createDto = (n) => `import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { Trim } from '../../common/dto/transforms.js';

export class Create${n.Singular}Dto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 100, description: 'Trimmed' })
  @Trim()
  @IsString()
  @Length(1, 100)
  name: string;
}
`;

const updateDto = (n) => `import { PartialType } from '@nestjs/swagger';
import { Create${n.Singular}Dto } from './create-${n.singular}.dto.js';

// skipNullProperties: false keeps \`null\` from slipping past the fields that always have a value.
export class Update${n.Singular}Dto extends PartialType(Create${n.Singular}Dto, {
  skipNullProperties: false,
}) {}
`;

const responseDto = (n) => `import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/dto/pagination-response.dto.js';
import { ApiIdProperty, ApiTextProperty } from '../../common/openapi/schemas.js';

export class ${n.Singular}Response {
  @ApiIdProperty('${strings.capitalize(n.word)} id')
  id: number;

  @ApiTextProperty(100, 'Name', { minLength: 1 })
  name: string;
}

export class ${n.Singular}ListResponse {
  @ApiProperty({ type: [${n.Singular}Response], maxItems: 100, description: 'Ordered by id' })
  ${camel(n.plural)}: ${n.Singular}Response[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}
`;

const repository = (n) => `import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ${n.Singular} } from './${n.singular}.entity.js';

/** The fields a request writes; the id and the timestamps come from the database. */
export type ${n.Singular}Fields = Pick<${n.Singular}, 'name'>;

/** The ${n.words} module's only door to the database (docs/data-access.md). */
@Injectable()
export class ${n.Plural}Repository {
  private readonly ${camel(n.plural)}: Repository<${n.Singular}>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.${camel(n.plural)} = dataSource.getRepository(${n.Singular});
  }

  /** Ordered by id. */
  async findPage(limit: number, offset: number): Promise<{ ${camel(n.plural)}: ${n.Singular}[]; total: number }> {
    const [found, total] = await this.${camel(n.plural)}.findAndCount({ order: { id: 'ASC' }, take: limit, skip: offset });
    return { ${camel(n.plural)}: found, total };
  }

  findById(id: number): Promise<${n.Singular} | null> {
    return this.${camel(n.plural)}.findOneBy({ id });
  }

  insert(fields: ${n.Singular}Fields): Promise<${n.Singular}> {
    return this.${camel(n.plural)}.save(this.${camel(n.plural)}.create(fields));
  }

  /** Writes \`changes\` over \`${camel(n.singular)}\` (fields left undefined are kept) and returns it. */
  update(${camel(n.singular)}: ${n.Singular}, changes: Partial<${n.Singular}Fields>): Promise<${n.Singular}> {
    return this.${camel(n.plural)}.save(this.${camel(n.plural)}.merge(${camel(n.singular)}, changes));
  }

  /** False when there is no such ${n.word}. */
  async delete(id: number): Promise<boolean> {
    const result = await this.${camel(n.plural)}.delete(id);
    return Boolean(result.affected);
  }
}
`;

const service = (n) => `import { Injectable } from '@nestjs/common';
import {
  paginationOf,
  type Pagination,
  type PaginationQueryDto,
} from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import type { Create${n.Singular}Dto } from './dto/create-${n.singular}.dto.js';
import type { Update${n.Singular}Dto } from './dto/update-${n.singular}.dto.js';
import type { ${n.Singular} } from './${n.singular}.entity.js';
import { ${n.Plural}Repository } from './${n.plural}.repository.js';

/** Also ParseIdPipe's answer on the ${n.word} routes, for ids that cannot exist. */
export const ${camel(n.singular)}NotFound = (id: number | string) =>
  new ApiException('NOT_FOUND', \`${strings.capitalize(n.word)} \${id} not found\`);

@Injectable()
export class ${n.Plural}Service {
  constructor(private readonly ${camel(n.plural)}: ${n.Plural}Repository) {}

  async list(query: PaginationQueryDto): Promise<{ ${camel(n.plural)}: ${n.Singular}[]; pagination: Pagination }> {
    const offset = query.offset ?? 0;
    const { ${camel(n.plural)}: found, total } = await this.${camel(n.plural)}.findPage(query.limit, offset);
    return { ${camel(n.plural)}: found, pagination: paginationOf(query.limit, offset, found.length, total) };
  }

  async findOne(id: number): Promise<${n.Singular}> {
    const found = await this.${camel(n.plural)}.findById(id);
    if (!found) throw ${camel(n.singular)}NotFound(id);
    return found;
  }

  create(dto: Create${n.Singular}Dto): Promise<${n.Singular}> {
    return this.${camel(n.plural)}.insert({ name: dto.name });
  }

  async update(id: number, dto: Update${n.Singular}Dto): Promise<${n.Singular}> {
    return this.${camel(n.plural)}.update(await this.findOne(id), dto);
  }

  async remove(id: number): Promise<void> {
    if (!(await this.${camel(n.plural)}.delete(id))) throw ${camel(n.singular)}NotFound(id);
  }
}
`;

const controller = (n) => {
  const service = `${camel(n.plural)}Service`;
  const to = `to${n.Singular}Response`;
  const W = strings.capitalize(n.word);
  return `import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../common/decorators/roles.decorator.js';
import { PaginationQueryDto } from '../common/dto/pagination-query.dto.js';
import { ApiErrors } from '../common/openapi/api-errors.decorator.js';
import {
  ApiAuth,
  ApiIdParam,
  ApiJsonBody,
  ApiValidatedQuery,
} from '../common/openapi/api-docs.decorators.js';
import { EmptyResponse } from '../common/openapi/empty-response.dto.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { Create${n.Singular}Dto } from './dto/create-${n.singular}.dto.js';
import { ${n.Singular}ListResponse, ${n.Singular}Response } from './dto/${n.singular}-response.dto.js';
import { Update${n.Singular}Dto } from './dto/update-${n.singular}.dto.js';
import { ${to} } from './${n.singular}.mapper.js';
import { ${camel(n.singular)}NotFound, ${n.Plural}Service } from './${n.plural}.service.js';

@ApiTags('${n.plural}')
@ApiAuth()
@Controller('${n.plural}')
export class ${n.Plural}Controller {
  constructor(private readonly ${service}: ${n.Plural}Service) {}

  @Get()
  @ApiOperation({
    operationId: 'list${n.Plural}',
    summary: 'List ${n.words}',
    description: 'Ordered by id, paged with limit and offset. Any authenticated caller.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: ${n.Singular}ListResponse, description: 'One page of ${n.words}' })
  async list(@Query() query: PaginationQueryDto): Promise<${n.Singular}ListResponse> {
    const page = await this.${service}.list(query);
    return { ${camel(n.plural)}: page.${camel(n.plural)}.map(${to}), pagination: page.pagination };
  }

  @Post()
  @Roles('admin')
  @Idempotent()
  @ApiOperation({ operationId: 'create${n.Singular}', summary: 'Create ${n.a} ${n.word}', description: 'Admin only.' })
  @ApiJsonBody()
  @ApiCreatedResponse({ type: ${n.Singular}Response, description: 'The new ${n.word}' })
  async create(@Body() dto: Create${n.Singular}Dto): Promise<${n.Singular}Response> {
    return ${to}(await this.${service}.create(dto));
  }

  @Get(':id')
  @ApiOperation({ operationId: 'get${n.Singular}', summary: 'Get ${n.a} ${n.word}', description: 'Any authenticated caller.' })
  @ApiIdParam('id', '${W} id')
  @ApiErrors({ 404: ['NOT_FOUND'] })
  @ApiOkResponse({ type: ${n.Singular}Response, description: 'The ${n.word}' })
  async findOne(@Param('id', new ParseIdPipe(${camel(n.singular)}NotFound)) id: number): Promise<${n.Singular}Response> {
    return ${to}(await this.${service}.findOne(id));
  }

  @Put(':id')
  @Roles('admin')
  @ApiOperation({
    operationId: 'update${n.Singular}',
    summary: 'Update ${n.a} ${n.word}',
    description: 'Admin only. Any non-empty subset of the fields.',
  })
  @ApiIdParam('id', '${W} id')
  @ApiJsonBody()
  @ApiErrors({ 404: ['NOT_FOUND'] })
  @ApiOkResponse({ type: ${n.Singular}Response, description: 'The updated ${n.word}' })
  async update(
    @Param('id', new ParseIdPipe(${camel(n.singular)}NotFound)) id: number,
    @Body(NonEmptyBodyPipe) dto: Update${n.Singular}Dto,
  ): Promise<${n.Singular}Response> {
    return ${to}(await this.${service}.update(id, dto));
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({ operationId: 'delete${n.Singular}', summary: 'Delete ${n.a} ${n.word}', description: 'Admin only.' })
  @ApiIdParam('id', '${W} id')
  @ApiErrors({ 404: ['NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Deleted; the body is \`{}\`' })
  async remove(@Param('id', new ParseIdPipe(${camel(n.singular)}NotFound)) id: number): Promise<EmptyResponse> {
    await this.${service}.remove(id);
    return {};
  }
}
`;
};

const migration = (n, className) => `import { MigrationInterface, QueryRunner } from 'typeorm';

// Written by \`nest g resource\`; review it, and regenerate it with \`npm run migration:generate\`
// if the entity changes before it is applied anywhere.
export class ${className} implements MigrationInterface {
  name = '${className}';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      \`CREATE TABLE "${n.table}" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "name" character varying(100) NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_${n.table}" PRIMARY KEY ("id"))\`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(\`DROP TABLE "${n.table}"\`);
  }
}
`;

const e2eSpec = (n) => {
  const url = `/v1/${n.plural}`;
  return `import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, expectValidationError } from '../support/errors.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe('${n.Plural} (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (body: object) => t.http.post('${url}').set(t.admin).send(body);

  it('should create, read, list, update and delete', async () => {
    const created = await create({ name: ' First ' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), name: 'First' });
    const path = \`${url}/\${created.body.id}\`;

    expect((await t.http.get(path).set(t.user)).body).toEqual(created.body);
    const list = await t.http.get('${url}?limit=100').set(t.user);
    expect(list.body.${camel(n.plural)}).toContainEqual(created.body);
    expect(list.body.pagination).toMatchObject({ limit: 100, offset: 0 });

    const updated = await t.http.put(path).set(t.admin).send({ name: 'Renamed' });
    expect(updated.body).toEqual({ id: created.body.id, name: 'Renamed' });

    expect((await t.http.delete(path).set(t.admin)).body).toEqual({});
    expectError(await t.http.get(path).set(t.user), 404, 'NOT_FOUND');
  });

  it.each([
    ['a missing name', {}, ['name']],
    ['a blank name', { name: '  ' }, ['name']],
    ['an unknown field', { name: 'Ok', id: 7 }, ['id']],
  ])('should refuse %s with 400 VALIDATION_ERROR', async (_label, body, fields) => {
    expectValidationError(await create(body), fields);
  });

  it('should refuse a malformed id with 400, and writes from a plain user with 403', async () => {
    expectValidationError(await t.http.get('${url}/abc').set(t.user), ['id']);
    expectValidationError(await t.http.get('${url}?limit=0').set(t.user), ['limit']);
    expectError(await t.http.post('${url}').set(t.user).send({ name: 'No' }), 403, 'INSUFFICIENT_PERMISSIONS');
  });

  it('should refuse a caller without credentials with 401', async () => {
    expectError(await t.http.get('${url}'), 401, 'AUTHENTICATION_REQUIRED');
  });
});
`;
};

/**
 * Adds an import after the last one, and an entry to the array that `anchor` ends by
 * opening: before `last` (and the comment lines above it) when the array holds it, else at
 * the end.
 */
function register(tree, path, importLine, anchor, entry, last) {
  const source = tree.read(path)?.toString('utf8');
  if (source === undefined) throw new SchematicsException(`${path} not found`);
  const lastImport = source.lastIndexOf('\nimport ');
  const importEnd = source.indexOf(';\n', lastImport) + 2;
  const text = source.slice(0, importEnd) + importLine + '\n' + source.slice(importEnd);
  if (!text.includes(anchor)) throw new SchematicsException(`${path}: "${anchor}" not found`);
  const open = text.indexOf(anchor) + anchor.length - 1;
  // The array's own closing bracket, past any nested ones.
  let depth = 0;
  let close = open;
  for (; close < text.length; close += 1) {
    if (text[close] === '[') depth += 1;
    if (text[close] === ']' && --depth === 0) break;
  }
  const lastAt =
    last === undefined ? -1 : text.slice(open, close).search(new RegExp(`\\b${last}\\b`));
  if (lastAt >= 0) {
    let lineStart = text.lastIndexOf('\n', open + lastAt) + 1;
    const lineAbove = () => text.slice(text.lastIndexOf('\n', lineStart - 2) + 1, lineStart);
    while (lineAbove().trim().startsWith('//')) lineStart -= lineAbove().length;
    tree.overwrite(path, `${text.slice(0, lineStart)}${entry},\n${text.slice(lineStart)}`);
    return;
  }
  const before = text.slice(0, close).replace(/,?\s*$/, '');
  tree.overwrite(path, `${before}, ${entry}${text.slice(close)}`);
}

/** Spectral wants every operation's tag declared: one more `.addTag` after the last. */
function addTag(tree, path, n) {
  const source = tree.read(path)?.toString('utf8');
  const last = source?.lastIndexOf('.addTag(') ?? -1;
  if (last < 0) throw new SchematicsException(`${path}: no .addTag( to follow`);
  const end = source.indexOf('\n', last);
  const tag = `\n    .addTag('${n.plural}', '${strings.capitalize(n.words)}')`;
  tree.overwrite(path, source.slice(0, end) + tag + source.slice(end));
}

async function format(path, text) {
  const prettier = await import('prettier');
  const config = await prettier.resolveConfig(path);
  return prettier.format(text, { ...config, filepath: path });
}

function main(options) {
  return async (tree) => {
    const n = namesOf(options.name);
    const root = options.sourceRoot ?? 'src';
    const dir = `${root}/${n.plural}`;
    if (tree.exists(`${dir}/${n.plural}.module.ts`)) {
      throw new SchematicsException(`${dir} already exists`);
    }
    const stamp = Date.now();
    const migrationClass = `Create${n.Plural}${stamp}`;
    const migrationFile = `${stamp}-Create${n.Plural}`;
    const files = [
      [`${dir}/${n.plural}.module.ts`, module_(n)],
      [`${dir}/${n.plural}.controller.ts`, controller(n)],
      [`${dir}/${n.plural}.service.ts`, service(n)],
      [`${dir}/${n.plural}.repository.ts`, repository(n)],
      [`${dir}/${n.singular}.entity.ts`, entity(n)],
      [`${dir}/${n.singular}.mapper.ts`, mapper(n)],
      [`${dir}/dto/create-${n.singular}.dto.ts`, createDto(n)],
      [`${dir}/dto/update-${n.singular}.dto.ts`, updateDto(n)],
      [`${dir}/dto/${n.singular}-response.dto.ts`, responseDto(n)],
      [`${root}/database/migrations/${migrationFile}.ts`, migration(n, migrationClass)],
    ];
    if (options.spec !== false) files.push([`test/e2e/${n.plural}.e2e-spec.ts`, e2eSpec(n)]);

    register(
      tree,
      `${root}/app.module.ts`,
      `import { ${n.Plural}Module } from './${n.plural}/${n.plural}.module.js';`,
      'imports: [',
      `${n.Plural}Module`,
      // Its catch-all route must stay registered after every real one.
      'UnknownRouteModule',
    );
    register(
      tree,
      `${root}/database/entities.ts`,
      `import { ${n.Singular} } from '../${n.plural}/${n.singular}.entity.js';`,
      'export const entities = [',
      n.Singular,
    );
    register(
      tree,
      `${root}/database/migrations/index.ts`,
      `import { ${migrationClass} } from './${migrationFile}.js';`,
      'export const migrations: (new () => MigrationInterface)[] = [',
      migrationClass,
    );
    addTag(tree, `${root}/api-description/openapi-builder.ts`, n);
    for (const path of [
      `${root}/api-description/openapi-builder.ts`,
      `${root}/app.module.ts`,
      `${root}/database/entities.ts`,
      `${root}/database/migrations/index.ts`,
    ]) {
      tree.overwrite(path, await format(path, tree.read(path).toString('utf8')));
    }
    for (const [path, text] of files) tree.create(path, await format(path, text));
    return tree;
  };
}

module.exports = { main };
