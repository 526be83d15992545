"""Injected dependencies: the services, a database session, the authenticated caller."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from monitor.api.auth import Permission, Principal
from monitor.api.schemas import ErrorOut
from monitor.api.services import Services

bearer = HTTPBearer(auto_error=False, description="A token issued with `table-monitor token new`.")


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_session(services: ServicesDep) -> Iterator[Session]:
    """A read-only session (never blocks the ingest writer)."""
    with services.read_sessions() as session:
        yield session


def get_write_session(services: ServicesDep) -> Iterator[Session]:
    with services.sessions() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
WriteSessionDep = Annotated[Session, Depends(get_write_session)]


def _unauthorized(message: str) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, message, headers={"WWW-Authenticate": "Bearer"})


def require(permission: Permission) -> Callable[..., Principal]:
    """A dependency that admits only callers whose role grants ``permission``."""

    def dependency(services: ServicesDep,
                   credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> Principal:
        if credentials is None:
            raise _unauthorized("missing bearer token (Authorization: Bearer <token>)")
        principal = services.tokens.authenticate(credentials.credentials)
        if principal is None:
            raise _unauthorized("unknown or revoked token")
        if not principal.can(permission):
            raise HTTPException(status.HTTP_403_FORBIDDEN,
                                f"role {principal.role.value!r} may not {permission.value}")
        return principal

    dependency.__name__ = f"require_{permission.value}"
    return dependency


Reader = Annotated[Principal, Depends(require(Permission.READ))]
Actor = Annotated[Principal, Depends(require(Permission.ACT))]
Sensor = Annotated[Principal, Depends(require(Permission.INGEST))]
Admin = Annotated[Principal, Depends(require(Permission.ADMIN))]


def any_caller(services: ServicesDep,
               credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> Principal:
    if credentials is None:
        raise _unauthorized("missing bearer token (Authorization: Bearer <token>)")
    principal = services.tokens.authenticate(credentials.credentials)
    if principal is None:
        raise _unauthorized("unknown or revoked token")
    return principal


Caller = Annotated[Principal, Depends(any_caller)]

AUTH_ERRORS: dict[int | str, dict[str, object]] = {
    401: {"model": ErrorOut, "description": "No token, or a token the server does not know"},
    403: {"model": ErrorOut, "description": "The token's role does not allow this"},
}
VALIDATION_ERROR: dict[int | str, dict[str, object]] = {
    422: {"model": ErrorOut, "description": "The request is invalid; `detail` says what and where"},
}
NOT_FOUND: dict[int | str, dict[str, object]] = {404: {"model": ErrorOut, "description": "No such item"}}
