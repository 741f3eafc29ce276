import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { Roles } from '../common/decorators/roles.decorator.js';
import type { Pagination } from '../common/dto/pagination-query.dto.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import type { Principal } from '../common/types/principal.js';
import { CreateUserDto } from './dto/create-user.dto.js';
import { ListUsersQueryDto } from './dto/list-users-query.dto.js';
import { UpdateUserDto } from './dto/update-user.dto.js';
import { assertCanDeleteUser, assertCanReadUser, assertCanUpdateUser } from './user-access.js';
import { toUserResponse, type UserResponse } from './user.mapper.js';
import { UsersService } from './users.service.js';

@Controller('users')
export class UsersController {
  constructor(private readonly usersService: UsersService) {}

  @Post()
  @Roles('admin')
  async create(@Body() dto: CreateUserDto): Promise<UserResponse> {
    return toUserResponse(await this.usersService.create(dto));
  }

  @Get()
  @Roles('admin')
  async list(
    @Query() query: ListUsersQueryDto,
  ): Promise<{ users: UserResponse[]; pagination: Pagination }> {
    const page = await this.usersService.list(query);
    return { users: page.users.map(toUserResponse), pagination: page.pagination };
  }

  @Get(':id')
  async findOne(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseIdPipe) id: string,
  ): Promise<UserResponse> {
    assertCanReadUser(principal, id);
    return toUserResponse(await this.usersService.findOne(id));
  }

  @Put(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseIdPipe) id: string,
    @Body(NonEmptyBodyPipe) dto: UpdateUserDto,
  ): Promise<UserResponse> {
    assertCanUpdateUser(principal, id, dto);
    return toUserResponse(await this.usersService.update(id, dto));
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(200)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseIdPipe) id: string,
  ): Promise<Record<string, never>> {
    assertCanDeleteUser(principal, id);
    await this.usersService.remove(id);
    return {};
  }
}
