"""Bearer tokens and roles.

Roles: ``viewer`` reads, ``supervisor`` also acknowledges and resolves, ``sensor`` may only
ingest events, ``admin`` may do everything. Only SHA-256 digests of tokens are kept in memory
(tokens are random, high-entropy strings, so a fast digest is enough); a tokens file holds
digests only, never tokens. No token is ever logged or echoed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class Role(StrEnum):
    VIEWER = "viewer"
    SUPERVISOR = "supervisor"
    SENSOR = "sensor"
    ADMIN = "admin"


class Permission(StrEnum):
    READ = "read"
    ACT = "act"  # acknowledge, resolve
    INGEST = "ingest"
    ADMIN = "admin"


GRANTS: dict[Role, frozenset[Permission]] = {
    Role.VIEWER: frozenset({Permission.READ}),
    Role.SUPERVISOR: frozenset({Permission.READ, Permission.ACT}),
    Role.SENSOR: frozenset({Permission.INGEST}),
    Role.ADMIN: frozenset(Permission),
}


@dataclass(frozen=True, slots=True)
class Principal:
    name: str
    role: Role

    def can(self, permission: Permission) -> bool:
        return permission in GRANTS[self.role]


class TokenConfigError(ValueError):
    """A tokens entry that cannot be used; the message names where, never the token."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random token (URL-safe, 256 bits)."""
    return secrets.token_urlsafe(32)


class TokenRegistry:
    """Maps token digests to principals."""

    def __init__(self) -> None:
        self._by_digest: dict[str, Principal] = {}

    def __len__(self) -> int:
        return len(self._by_digest)

    def add_digest(self, hexdigest: str, principal: Principal, *, where: str) -> None:
        if len(hexdigest) != 64 or any(c not in "0123456789abcdef" for c in hexdigest):
            raise TokenConfigError(f"{where}: expected sha256:<64 lowercase hex digits>")
        if hexdigest in self._by_digest:
            raise TokenConfigError(f"{where}: the same token is configured twice")
        self._by_digest[hexdigest] = principal

    def add_token(self, token: str, principal: Principal, *, where: str) -> None:
        if len(token) < 16:
            raise TokenConfigError(f"{where}: token of {principal.name!r} is shorter than 16 characters")
        self.add_digest(digest(token), principal, where=where)

    def authenticate(self, token: str | None) -> Principal | None:
        if not token:
            return None
        wanted = digest(token)
        found: Principal | None = None
        # Compare against every digest in constant time per entry; do not stop early.
        for known, principal in self._by_digest.items():
            if hmac.compare_digest(known, wanted):
                found = principal
        return found

    def load_env(self, value: str, *, where: str = "TABLE_MONITOR_TOKENS") -> None:
        """``name:role:token`` entries separated by commas or newlines."""
        entries = [e.strip() for e in value.replace("\n", ",").split(",") if e.strip()]
        for i, entry in enumerate(entries, start=1):
            parts = entry.split(":", 2)
            if len(parts) != 3:
                raise TokenConfigError(f"{where} entry {i}: expected name:role:token")
            name, role, token = parts
            here = f"{where} entry {i}"
            self.add_token(token, Principal(name, _role(role, here)), where=here)

    def load_file(self, path: Path) -> None:
        """Lines ``name role sha256:HEX``; ``#`` starts a comment."""
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TokenConfigError(f"{path}: cannot read tokens file ({exc.strerror})") from None
        for lineno, line in enumerate(text.splitlines(), start=1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{path} line {lineno}"
            parts = line.split()
            if len(parts) != 3 or not parts[2].startswith("sha256:"):
                raise TokenConfigError(f"{where}: expected 'name role sha256:HEX' (digests only, no tokens)")
            name, role, hexdigest = parts
            principal = Principal(name, _role(role, where))
            self.add_digest(hexdigest.removeprefix("sha256:"), principal, where=where)


def _role(text: str, where: str) -> Role:
    try:
        return Role(text.strip().lower())
    except ValueError:
        raise TokenConfigError(
            f"{where}: unknown role {text!r} (one of: {', '.join(r.value for r in Role)})") from None


def file_line(name: str, role: Role, token: str) -> str:
    """The tokens-file line for ``token`` (what ``table-monitor token new`` prints)."""
    return f"{name} {role.value} sha256:{digest(token)}"
