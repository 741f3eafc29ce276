import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { LargePageQueryDto } from '../common/dto/pagination-query.dto.js';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { AnyRole, Roles } from '../common/decorators/roles.decorator.js';
import { RequiredScope } from '../common/decorators/required-scope.decorator.js';
import {
  IfMatchHeader,
  rowEtag,
  setEtag,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiAuth,
  ApiConditionalRead,
  ApiConditionalWrite,
  ApiIdParam,
  ApiJsonBody,
  ApiValidatedQuery,
  ETAG_RESPONSE_HEADERS,
} from '../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../openapi/empty-response.dto.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import type { Principal } from '../common/types/principal.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { CreateUserDto } from './dto/create-user.dto.js';
import { UpdateUserDto } from './dto/update-user.dto.js';
import { FindCustomersQueryDto } from './dto/find-customers-query.dto.js';
import {
  CustomerMatchListResponse,
  UserListResponse,
  UserResponse,
} from './dto/user-response.dto.js';
import {
  assertCanCreateUser,
  assertCanDeleteUser,
  assertCanReadUser,
  assertCanUpdateUser,
} from './user-access.js';
import { toUserResponse } from './user.mapper.js';
import { userNotFound, UsersService } from './users.service.js';

@ApiTags('users')
@ApiAuth()
@Controller('users')
export class UsersController {
  constructor(private readonly usersService: UsersService) {}

  @Post()
  @RequiredScope('users:write')
  @Roles('admin')
  @Idempotent()
  @ApiOperation({
    operationId: 'createUser',
    summary: 'Create a user',
    description:
      'Admin only. Setting `role` takes a bearer token (an API key gets 403). Duplicate ' +
      'username or email (any case): 409 CONFLICT. With `invite: true` and no `password`, ' +
      'the account is created with userStatus 2 and the person is mailed a link (valid 7 ' +
      'days) to choose a password, which activates it.',
  })
  @ApiJsonBody()
  @ApiErrors({ 409: ['CONFLICT'] })
  @ApiCreatedResponse({ type: UserResponse, description: 'The new user' })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateUserDto,
  ): Promise<UserResponse> {
    assertCanCreateUser(principal, dto);
    return toUserResponse(await this.usersService.create(dto));
  }

  @Get()
  @RequiredScope('users:read')
  @Roles('admin')
  @ApiOperation({
    operationId: 'listUsers',
    summary: 'List users',
    description: 'Admin only. Ordered by id.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: UserListResponse, description: 'One page of users' })
  async list(@Query() query: LargePageQueryDto): Promise<UserListResponse> {
    const page = await this.usersService.list(query);
    return { users: page.users.map(toUserResponse), pagination: page.pagination };
  }

  // Before `:id`, which would take `customers` for an id.
  @Get('customers')
  @RequiredScope('users:read')
  @Roles('admin', 'user')
  @ApiOperation({
    operationId: 'findCustomers',
    summary: 'Find customers',
    description:
      'Staff only: the customer to request an adoption for (`adopterId`). Up to 10 active ' +
      'customers whose username starts with `q`, or whose email address is `q` as a whole ' +
      '(any case), ordered by username; each only as `{ id, username }`.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: CustomerMatchListResponse, description: 'The matching customers' })
  async findCustomers(@Query() query: FindCustomersQueryDto): Promise<CustomerMatchListResponse> {
    const customers = await this.usersService.findCustomers(query.q);
    return { customers: customers.map(({ id, username }) => ({ id, username })) };
  }

  @Get(':id')
  @RequiredScope('users:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'getUser',
    summary: 'Get a user',
    description: 'An admin reads anyone; others only themselves (403 otherwise, existing or not).',
  })
  @ApiIdParam('id', 'User id')
  @ApiConditionalRead()
  @ApiErrors({ 403: ['INSUFFICIENT_PERMISSIONS'], 404: ['USER_NOT_FOUND'] })
  @ApiOkResponse({ type: UserResponse, description: 'The user', headers: ETAG_RESPONSE_HEADERS })
  async findOne(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(userNotFound)) id: number,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserResponse> {
    assertCanReadUser(principal, id);
    const user = await this.usersService.findOne(id);
    setEtag(res, rowEtag(user));
    return toUserResponse(user);
  }

  @Put(':id')
  @RequiredScope('users:write')
  @AnyRole()
  @ApiOperation({
    operationId: 'updateUser',
    summary: 'Update a user',
    description:
      'An admin, or the user itself. Only an admin changes role or userStatus, with a bearer ' +
      'token; a password change needs a bearer token too (an API key gets 403) and refuses ' +
      'every token issued before it; an admin cannot demote or deactivate itself (409). ' +
      'Changing your own password, email or username (admins too) takes `currentPassword`: ' +
      'missing is 400, wrong is 403 INVALID_CURRENT_PASSWORD and counts toward the login ' +
      'lockout of your username (while it is locked, the right one is refused alike); on ' +
      'any other change, someone else’s included, it is refused (400). Your own new `email` ' +
      'takes effect only when the link mailed to it is used: the answer keeps the old ' +
      '`email` and shows `pendingEmail`; an admin changing someone else’s email changes it ' +
      'at once.',
  })
  @ApiIdParam('id', 'User id')
  @ApiJsonBody()
  @ApiConditionalWrite()
  @ApiErrors({
    403: ['INSUFFICIENT_PERMISSIONS', 'INVALID_CURRENT_PASSWORD'],
    404: ['USER_NOT_FOUND'],
    409: ['CONFLICT'],
  })
  @ApiOkResponse({
    type: UserResponse,
    description: 'The updated user',
    headers: ETAG_RESPONSE_HEADERS,
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(userNotFound)) id: number,
    @Body(NonEmptyBodyPipe) dto: UpdateUserDto,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserResponse> {
    assertCanUpdateUser(principal, id, dto);
    // Your own new email waits for its mailed link; an admin's change of another's is at once.
    const user = await this.usersService.update(id, dto, ifMatch, {
      emailByMail: principal.userId === id,
    });
    setEtag(res, rowEtag(user));
    return toUserResponse(user);
  }

  @Delete(':id')
  @RequiredScope('users:write')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteUser',
    summary: 'Delete a user',
    description:
      'Admin only; revokes the user’s API keys and cancels its open adoptions (its adoptions ' +
      'are kept, without it). An admin cannot delete itself (409).',
  })
  @ApiIdParam('id', 'User id')
  @ApiConditionalWrite()
  @ApiErrors({ 404: ['USER_NOT_FOUND'], 409: ['CONFLICT'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Deleted; the body is `{}`' })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(userNotFound)) id: number,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ): Promise<EmptyResponse> {
    assertCanDeleteUser(principal, id);
    await this.usersService.remove(id, ifMatch);
    return {};
  }
}
