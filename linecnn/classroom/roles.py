"""Who may do what on a shared server: teachers, students, anonymous viewers, and the laptop's one user.

Pure rules, no Streamlit: the pages ask ``rights`` with the signed-in user (or none) and the host's
settings, and offer only what it allows. Without sign-in a laptop keeps every right; a hosted server
keeps deletion from its viewers unless the host turns it on. With sign-in the host names the
teachers; everyone else signed in is a student.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from linecnn.classroom.reservation import Reservation
from linecnn.classroom.settings import env_flag, env_words

TEACHERS_ENV = "LINECNN_TEACHERS"  # teachers' e-mails or domains, separated by commas or spaces
TEACHER_GROUP_ENV = "LINECNN_TEACHER_GROUP"  # a group whose members are teachers (in the group claim)
GROUP_CLAIM_ENV = "LINECNN_GROUP_CLAIM"  # the sign-in claim that lists a user's groups (default: groups)
HOSTED_ENV = "LINECNN_HOSTED"  # 1: this server serves a class (the hosting profile implies it)
VIEWERS_DELETE_ENV = "LINECNN_VIEWERS_MAY_DELETE"  # 1: without sign-in, viewers of a hosted server may delete
DEFAULT_GROUP_CLAIM = "groups"


class Role(Enum):
    """What a session is on this server."""

    OWNER = "owner"  # a laptop without sign-in: the one user owns the history
    VIEWER = "viewer"  # a hosted server without sign-in: anyone who opens it
    TEACHER = "teacher"  # signed in and named a teacher by the host
    STUDENT = "student"  # signed in, not a teacher


@dataclass(frozen=True)
class RoleSettings:
    """The host's settings about roles, read from the environment by ``from_env``."""

    teachers: tuple[str, ...] = ()  # teachers' e-mails or domains ("ada@school.edu", "staff.school.edu")
    teacher_group: str = ""  # a group that makes its members teachers; "" names no group
    group_claim: str = DEFAULT_GROUP_CLAIM  # the sign-in claim that lists a user's groups
    hosted: bool = False  # this server serves a class, not one person on a laptop
    viewers_delete: bool = False  # without sign-in, a hosted server's viewers may delete and clear

    def __post_init__(self) -> None:
        if not self.group_claim.strip():
            raise ValueError(f"{GROUP_CLAIM_ENV} must name a claim, e.g. groups.")

    @classmethod
    def from_env(cls, profile_hosted: bool = False) -> RoleSettings:
        """The settings from the environment; ``profile_hosted``: the hosting profile is in use."""
        return cls(
            teachers=env_words(TEACHERS_ENV),
            teacher_group=os.environ.get(TEACHER_GROUP_ENV, "").strip(),
            group_claim=os.environ.get(GROUP_CLAIM_ENV, "").strip() or DEFAULT_GROUP_CLAIM,
            hosted=env_flag(HOSTED_ENV, profile_hosted),
            viewers_delete=env_flag(VIEWERS_DELETE_ENV, False),
        )


@dataclass(frozen=True)
class Rights:
    """What one session may do with the server's shared benchmark history and its benchmark."""

    role: Role
    user: str = ""  # who the session is when signed in (e-mail, else the provider's subject), else ""
    name: str = ""  # how the class sees that person (their name, else the e-mail)
    delete: bool = False  # delete one run of the history
    clear: bool = False  # delete every run of the history
    reserve: bool = False  # reserve the benchmark, so that only teachers may run it for a while
    sees_all: bool = True  # its history lists every run; False: its own only (the class board shows all)

    @property
    def teacher(self) -> bool:
        """True for a teacher: a reservation does not stop them."""
        return self.role is Role.TEACHER


def rights(user: Mapping[str, Any] | None, settings: RoleSettings) -> Rights:
    """This session's rights: ``user`` is the signed-in user's claims, None when sign-in is off."""
    if user is None:
        everyone = not settings.hosted or settings.viewers_delete
        role = Role.VIEWER if settings.hosted else Role.OWNER
        return Rights(role, delete=everyone, clear=everyone)
    who = str(user.get("email") or user.get("sub") or "").strip().lower()
    name = str(user.get("name") or user.get("email") or user.get("sub") or "")
    if is_teacher(user, settings):
        return Rights(Role.TEACHER, who, name, delete=True, clear=True, reserve=True)
    return Rights(Role.STUDENT, who, name, sees_all=False)


def is_teacher(user: Mapping[str, Any], settings: RoleSettings) -> bool:
    """True when the host names this user a teacher, by address, domain or group."""
    verified = user.get("email_verified") is not False  # an address the provider doubts never counts
    if settings.teachers and verified and email_matches(user.get("email"), settings.teachers):
        return True
    groups = user.get(settings.group_claim)
    groups = [groups] if isinstance(groups, str) else groups if isinstance(groups, list | tuple) else []
    return bool(settings.teacher_group) and settings.teacher_group in [str(group) for group in groups]


def email_matches(email: object, entries: Iterable[str]) -> bool:
    """True when an entry names this address or its domain ("ada@school.edu", "school.edu", "@school.edu")."""
    # A blank entry matches nobody: a half-filled setting keeps a door closed rather than open.
    entries = [entry.strip().lower() for entry in entries if entry.strip()]
    if not isinstance(email, str) or "@" not in email:
        return False
    address = email.strip().lower()
    domain = address.rsplit("@", 1)[1]
    return any(_entry_matches(entry, address, domain) for entry in entries)


def _entry_matches(entry: str, address: str, domain: str) -> bool:
    """One entry: a whole address ("ada@school.edu") or a domain ("school.edu", "@school.edu")."""
    bare = entry.removeprefix("@")
    return address == bare if "@" in bare else domain == bare


def benchmark_refusal(session: Rights, reservation: Reservation | None) -> Reservation | None:
    """The reservation that stops this session's Run benchmark, or None when it may run now."""
    return None if reservation is None or session.teacher else reservation


def start_up_line(signed_in: bool, settings: RoleSettings) -> str:
    """The server log's sentence on who may delete, clear and reserve, so a host sees a missed setting."""
    if not signed_in:
        if not settings.hosted:
            return "Sign-in off, not a class server: whoever opens the app may delete runs."
        if settings.viewers_delete:
            return f"Sign-in off: every viewer may delete runs and clear history ({VIEWERS_DELETE_ENV}=1)."
        return f"Sign-in off: nobody may delete runs from the page ({VIEWERS_DELETE_ENV}=1 allows it)."
    named = [", ".join(settings.teachers)] if settings.teachers else []
    if settings.teacher_group:
        named.append(f"members of the group {settings.teacher_group!r} (claim {settings.group_claim!r})")
    if not named:
        return (
            f"Sign-in on, but no teacher is named ({TEACHERS_ENV}, {TEACHER_GROUP_ENV}): "
            "nobody may delete runs, clear the history or reserve the benchmark."
        )
    return f"Sign-in on. Teachers: {'; '.join(named)}. Everyone else who signs in is a student."
