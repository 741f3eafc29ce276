import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { TtlCache } from '../common/cache/ttl-cache.js';
import { paginationOf, type Pagination } from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import type { Role } from '../common/types/principal.js';
import type { CreateUserDto } from './dto/create-user.dto.js';
import type { ListUsersQueryDto } from './dto/list-users-query.dto.js';
import type { UpdateUserDto } from './dto/update-user.dto.js';
import { PasswordService } from './password.service.js';
import { UserStatus } from './user-status.js';
import { User } from './user.entity.js';

/** What a bearer token's check needs to know about its user. */
export interface AccessState {
  userStatus: UserStatus;
  role: Role;
}

export interface UserPage {
  users: User[];
  pagination: Pagination;
}

// Tokens of disabled or deleted accounts must stop working within 60 s (contract): a 30 s
// cache spares the database a query per token request and stays well inside that.
const ACCESS_STATE_TTL_MS = 30_000;
const ACCESS_STATE_MAX_ENTRIES = 10_000;

const userNotFound = (id: string | number) =>
  ApiException.notFound('USER_NOT_FOUND', `User ${id} not found`);

@Injectable()
export class UsersService {
  private readonly logger = new Logger('Users');
  private readonly accessStates = new TtlCache<number, AccessState | null>(
    ACCESS_STATE_TTL_MS,
    ACCESS_STATE_MAX_ENTRIES,
  );

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly passwords: PasswordService,
  ) {}

  async list(query: ListUsersQueryDto): Promise<UserPage> {
    const offset = query.offset ?? 0;
    const [users, total] = await this.users.findAndCount({
      order: { id: 'ASC' },
      take: query.limit,
      skip: offset,
    });
    return { users, pagination: paginationOf(query.limit, offset, users.length, total) };
  }

  async findOne(id: string): Promise<User> {
    const user = await this.users.findOneBy({ id: id as unknown as number });
    if (!user) throw userNotFound(id);
    return user;
  }

  /** Usernames are unique case-insensitively, so this finds at most one. */
  findByUsername(username: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('user')
      .where('lower(user.username) = lower(:username)', { username })
      .getOne();
  }

  async create(dto: CreateUserDto): Promise<User> {
    const { password, ...fields } = dto;
    return this.users.save(
      this.users.create({
        ...fields,
        passwordHash: await this.passwords.hashPassword(password),
      }),
    );
  }

  async update(id: string, dto: UpdateUserDto): Promise<User> {
    const user = await this.findOne(id);
    const { password, ...fields } = dto;
    this.users.merge(user, fields);
    if (password !== undefined) user.passwordHash = await this.passwords.hashPassword(password);
    const saved = await this.users.save(user);
    this.accessStates.delete(saved.id);
    return saved;
  }

  /** Its API keys go with it (foreign key ON DELETE CASCADE). */
  async remove(id: string): Promise<void> {
    const result = await this.users.delete(id);
    if (!result.affected) throw userNotFound(id);
    this.accessStates.delete(Number(id));
  }

  /**
   * Status and role of a token's user, null when deleted. Cached for up to 30 s; changes
   * made through this instance take effect at once, those of other instances within 30 s.
   */
  async accessStateOf(userId: number): Promise<AccessState | null> {
    const cached = this.accessStates.get(userId);
    if (cached !== undefined) return cached;
    const user = await this.users.findOne({
      select: { id: true, userStatus: true, role: true },
      where: { id: userId },
    });
    const state = user ? { userStatus: user.userStatus, role: user.role } : null;
    this.accessStates.set(userId, state);
    return state;
  }

  /**
   * Creates the first admin when there is none. Safe when several instances start at
   * once: the insert does nothing if another one has just taken the username.
   * Returns whether this call created it.
   */
  async ensureAdmin(username: string, email: string, password: string): Promise<boolean> {
    if (await this.users.existsBy({ role: 'admin' })) return false;
    const passwordHash = await this.passwords.hashPassword(password);
    const inserted: unknown[] = await this.users.query(
      `INSERT INTO users (username, email, password_hash, role, user_status)
       VALUES ($1, $2, $3, 'admin', $4)
       ON CONFLICT DO NOTHING
       RETURNING id`,
      [username, email, passwordHash, UserStatus.Active],
    );
    if (inserted.length > 0) return true;
    if (!(await this.users.existsBy({ role: 'admin' }))) {
      this.logger.warn(
        `No admin exists and the username or email of ${username} is taken by another user; ` +
          'create an admin with `npm run cli -- create-admin`',
      );
    }
    return false;
  }
}
