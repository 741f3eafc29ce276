import {
  applyDecorators,
  Body,
  Controller,
  createParamDecorator,
  type ExecutionContext,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { AnyRole } from '../common/decorators/roles.decorator.js';
import { RequiredScope } from '../common/decorators/required-scope.decorator.js';
import { parseIfMatch, setEtag, type IfMatch } from '../common/http/conditional-requests.js';
import { IF_MATCH_HEADER } from '../common/http/header-names.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import type { Principal } from '../common/types/principal.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiAuth,
  ApiConditionalRead,
  ApiConditionalWrite,
  ApiIdParam,
  ApiJsonBody,
  ApiValidatedQuery,
  ETAG_RESPONSE_HEADERS,
  OptionalJsonBody,
} from '../openapi/api-docs.decorators.js';
import { adoptionEtag, toAdoptionResponse } from './adoption.mapper.js';
import type { AdoptionMove, RequestedMove } from './adoption-status.js';
import type { AdoptionRow } from './adoptions.repository.js';
import { adoptionNotFound, AdoptionsService } from './adoptions.service.js';
import { AdoptionMoveDto, ExtendAdoptionDto } from './dto/adoption-move.dto.js';
import { AdoptionListResponse, AdoptionResponse } from './dto/adoption-response.dto.js';
import { CreateAdoptionDto } from './dto/create-adoption.dto.js';
import { ListAdoptionsQueryDto } from './dto/list-adoptions-query.dto.js';

const MOVE_ERRORS = {
  404: ['ADOPTION_NOT_FOUND'],
  409: ['INVALID_ADOPTION_TRANSITION', 'PET_NOT_AVAILABLE'],
} as const;

/** The documentation of a move's route: its table row in contract section 9. */
const MoveDocs = (move: AdoptionMove, summary: string, description: string) =>
  applyDecorators(
    ApiOperation({ operationId: `${move}Adoption`, summary, description }),
    ApiIdParam('adoptionId', 'Adoption id'),
    ApiConditionalWrite(),
    ApiErrors({ ...MOVE_ERRORS }),
    ApiOkResponse({
      type: AdoptionResponse,
      description: 'The adoption after the move',
      headers: ETAG_RESPONSE_HEADERS,
    }),
  );

const adoptionId = () => Param('adoptionId', new ParseIdPipe(adoptionNotFound));

/** What a move takes besides its id and body: who asks, its If-Match, the answer to tag. */
interface MoveCaller {
  principal: Principal;
  ifMatch: IfMatch | undefined;
  res: Response;
}

/** The documented parts of a move (id, body) stay each route's own parameters. */
const MoveCaller = createParamDecorator((_data: unknown, ctx: ExecutionContext): MoveCaller => {
  const http = ctx.switchToHttp();
  const req = http.getRequest<Request>();
  const { principal } = req;
  // The authentication guard answered 401 before the handler: every move route requires it.
  if (!principal) throw new Error('An adoption move reached without a principal');
  return {
    principal,
    ifMatch: parseIfMatch(req.get(IF_MATCH_HEADER)),
    res: http.getResponse<Response>(),
  };
});

@ApiTags('adoptions')
@ApiAuth()
@Controller('adoptions')
export class AdoptionsController {
  constructor(private readonly adoptions: AdoptionsService) {}

  @Get()
  @RequiredScope('adoptions:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'listAdoptions',
    summary: 'List adoptions',
    description:
      'Newest first. Staff see every adoption, a customer its own. Filters: status ' +
      '(repeatable), petId, adopterId (staff). Page with `cursor` = the previous page’s ' +
      '`pagination.nextCursor`.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: AdoptionListResponse, description: 'One page of adoptions' })
  async list(
    @Query() query: ListAdoptionsQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AdoptionListResponse> {
    const page = await this.adoptions.list(query, principal);
    return {
      adoptions: page.adoptions.map(toAdoptionResponse),
      pagination: { limit: page.limit, nextCursor: page.nextCursor },
    };
  }

  @Post()
  @RequiredScope('adoptions:write')
  @AnyRole()
  @Idempotent()
  @ApiOperation({
    operationId: 'requestAdoption',
    summary: 'Request an adoption',
    description:
      'The pet must be available; it becomes pending, held until holdExpiresAt. A customer ' +
      'requests for itself; staff may name the adopter (adopterId).',
  })
  @ApiJsonBody()
  @ApiErrors({
    404: ['PET_NOT_FOUND'],
    409: ['PET_NOT_AVAILABLE', 'ADOPTION_LIMIT_REACHED'],
  })
  @ApiCreatedResponse({ type: AdoptionResponse, description: 'The new adoption' })
  async request(
    @Body() dto: CreateAdoptionDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AdoptionResponse> {
    return this.answered(res, await this.adoptions.request(dto, principal));
  }

  @Get(':adoptionId')
  @RequiredScope('adoptions:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'getAdoption',
    summary: 'Get an adoption',
    description: 'A customer sees its own only: someone else’s is 404.',
  })
  @ApiIdParam('adoptionId', 'Adoption id')
  @ApiConditionalRead()
  @ApiErrors({ 404: ['ADOPTION_NOT_FOUND'] })
  @ApiOkResponse({
    type: AdoptionResponse,
    description: 'The adoption',
    headers: ETAG_RESPONSE_HEADERS,
  })
  async findOne(
    @adoptionId() id: number,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AdoptionResponse> {
    return this.answered(res, await this.adoptions.findOne(id, principal));
  }

  @Post(':adoptionId/approve')
  @RequiredScope('adoptions:write')
  @Idempotent()
  @HttpCode(200)
  @OptionalJsonBody(AdoptionMoveDto)
  @MoveDocs('approve', 'Approve an adoption', 'Staff: requested → approved; the hold starts again.')
  approve(
    @adoptionId() id: number,
    @Body() dto: AdoptionMoveDto,
    @MoveCaller() caller: MoveCaller,
  ): Promise<AdoptionResponse> {
    return this.move(caller, id, 'approve', dto);
  }

  @Post(':adoptionId/complete')
  @RequiredScope('adoptions:write')
  @Idempotent()
  @HttpCode(200)
  @OptionalJsonBody(AdoptionMoveDto)
  @MoveDocs('complete', 'Complete an adoption', 'Staff: approved → completed; the pet is sold.')
  complete(
    @adoptionId() id: number,
    @Body() dto: AdoptionMoveDto,
    @MoveCaller() caller: MoveCaller,
  ): Promise<AdoptionResponse> {
    return this.move(caller, id, 'complete', dto);
  }

  @Post(':adoptionId/reject')
  @RequiredScope('adoptions:write')
  @Idempotent()
  @HttpCode(200)
  @OptionalJsonBody(AdoptionMoveDto)
  @MoveDocs(
    'reject',
    'Reject an adoption',
    'Staff: requested or approved → rejected; the pet is available again.',
  )
  reject(
    @adoptionId() id: number,
    @Body() dto: AdoptionMoveDto,
    @MoveCaller() caller: MoveCaller,
  ): Promise<AdoptionResponse> {
    return this.move(caller, id, 'reject', dto);
  }

  @Post(':adoptionId/cancel')
  @RequiredScope('adoptions:write')
  @Idempotent()
  @AnyRole()
  @HttpCode(200)
  @OptionalJsonBody(AdoptionMoveDto)
  @MoveDocs(
    'cancel',
    'Cancel an adoption',
    'The adopter or staff: requested or approved → cancelled; the pet is available again.',
  )
  cancel(
    @adoptionId() id: number,
    @Body() dto: AdoptionMoveDto,
    @MoveCaller() caller: MoveCaller,
  ): Promise<AdoptionResponse> {
    return this.move(caller, id, 'cancel', dto);
  }

  @Post(':adoptionId/return')
  @RequiredScope('adoptions:write')
  @Idempotent()
  @HttpCode(200)
  @OptionalJsonBody(AdoptionMoveDto)
  @MoveDocs(
    'return',
    'Return an adopted pet',
    'Staff: completed → returned; the pet moves sold → available.',
  )
  returnPet(
    @adoptionId() id: number,
    @Body() dto: AdoptionMoveDto,
    @MoveCaller() caller: MoveCaller,
  ): Promise<AdoptionResponse> {
    return this.move(caller, id, 'return', dto);
  }

  @Post(':adoptionId/extend')
  @RequiredScope('adoptions:write')
  @Idempotent()
  @HttpCode(200)
  @ApiJsonBody()
  @MoveDocs(
    'extend',
    'Extend an adoption’s hold',
    'Staff: an open adoption’s holdExpiresAt moves `hours` (1..168) later.',
  )
  extend(
    @adoptionId() id: number,
    @Body() dto: ExtendAdoptionDto,
    @MoveCaller() caller: MoveCaller,
  ): Promise<AdoptionResponse> {
    return this.move(caller, id, 'extend', dto);
  }

  /** Every move: made under its If-Match, answered with the adoption after it and its ETag. */
  private async move(
    { principal, ifMatch, res }: MoveCaller,
    id: number,
    move: RequestedMove,
    dto: AdoptionMoveDto | ExtendAdoptionDto,
  ): Promise<AdoptionResponse> {
    return this.answered(res, await this.adoptions.move(id, move, dto, principal, ifMatch));
  }

  private answered(res: Response, row: AdoptionRow): AdoptionResponse {
    setEtag(res, adoptionEtag(row));
    return toAdoptionResponse(row);
  }
}
