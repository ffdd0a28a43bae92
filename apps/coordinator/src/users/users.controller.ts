import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequireSession } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { UserIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import { CreateUserDto, DEFAULT_USERS_PER_PAGE, ListUsersQuery, UpdateUserDto } from './users.dto.js';
import { toUserJson, UsersService } from './users.service.js';

/** The account's users, managed by its admins from the dashboard (API keys and other roles: 403). */
@Controller('api/users')
@RequireSession('admin')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({
    operationId: 'listUsers',
    tag: 'Users',
    summary: 'List users',
    description: 'Newest first unless order=asc.',
    query: pageQuery(DEFAULT_USERS_PER_PAGE, 'By created_at: `desc` is newest first.'),
    success: { description: 'A page of users.', schema: 'UserListResponse' },
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListUsersQuery) {
    return { status: 'ok', data: await this.users.list(principal.accountId, query) };
  }

  @Post()
  @ApiOperation({
    operationId: 'createUser',
    tag: 'Users',
    summary: 'Invite a user',
    description:
      'Creates the user without a password and answers a one-time `set_password_url` (valid 24 h) to hand to them. ' +
      'Emails are unique across Picket, ignoring case (422 when taken).',
    body: { schema: 'UserCreate', required: true, description: 'The new user.' },
    success: { description: 'The user and their set-password URL.', schema: 'UserCreatedResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateUserDto) {
    const { user, setPasswordUrl } = await this.users.invite(principal.accountId, body);
    return { status: 'ok', data: { ...toUserJson(user), set_password_url: setPasswordUrl } };
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateUser',
    tag: 'Users',
    summary: 'Change a user',
    description:
      'Name, role, disabled; only the supplied fields change. Disabling ends their sessions. The last enabled admin ' +
      'cannot be demoted or disabled (422).',
    id: 'UserId',
    body: { schema: 'UserUpdate', required: true, description: 'The fields to change.' },
    success: { description: 'The user after the change.', schema: 'UserResponse' },
    errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UserIdPipe) id: string,
    @Body() body: UpdateUserDto,
  ) {
    return { status: 'ok', data: toUserJson(await this.users.update(principal.accountId, id, body)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteUser',
    tag: 'Users',
    summary: 'Delete a user',
    description: 'Ends their sessions. The last enabled admin cannot be deleted (422).',
    id: 'UserId',
    success: { description: 'Deleted.' },
    errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
  })
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', UserIdPipe) id: string): Promise<void> {
    await this.users.remove(principal.accountId, id);
  }
}
