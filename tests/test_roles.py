"""Who may do what: the pure rules of linecnn.classroom.roles, the host's settings and the reservation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from linecnn.classroom import reservation
from linecnn.classroom.roles import (
    Role,
    RoleSettings,
    benchmark_refusal,
    email_matches,
    rights,
    start_up_line,
)

ADA = {"is_logged_in": True, "name": "Ada Lovelace", "email": "ada@school.edu", "email_verified": True}
GRACE = {"is_logged_in": True, "name": "Grace Hopper", "email": "grace@school.edu", "email_verified": True}
TEACHERS = RoleSettings(teachers=("ada@school.edu",), hosted=True)
NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def test_a_laptop_without_sign_in_keeps_every_right_but_reserving():
    """One person on a laptop owns the history: delete, clear, every run listed; nobody to reserve from."""
    session = rights(None, RoleSettings())
    assert session.role is Role.OWNER
    assert (session.delete, session.clear, session.reserve, session.sees_all) == (True, True, False, True)


def test_a_hosted_server_without_sign_in_offers_no_deletion_unless_the_host_allows_it():
    """A class's anonymous viewers cannot delete or clear; the host's switch gives both back."""
    viewer = rights(None, RoleSettings(hosted=True))
    assert viewer.role is Role.VIEWER and not (viewer.delete or viewer.clear or viewer.reserve)
    allowed = rights(None, RoleSettings(hosted=True, viewers_delete=True))
    assert allowed.delete and allowed.clear and not allowed.reserve


def test_a_named_teacher_may_delete_reserve_and_clear_and_sees_every_run():
    """The host's list names the teacher; their session is marked with who they are."""
    teacher = rights(ADA, TEACHERS)
    assert teacher.role is Role.TEACHER and teacher.teacher
    assert (teacher.delete, teacher.clear, teacher.reserve, teacher.sees_all) == (True, True, True, True)
    assert (teacher.user, teacher.name) == ("ada@school.edu", "Ada Lovelace")


def test_everyone_else_signed_in_is_a_student_who_sees_their_own_runs():
    """A student may not delete, clear or reserve, and their History lists their own runs only."""
    student = rights(GRACE, TEACHERS)
    assert student.role is Role.STUDENT and not student.teacher
    assert not (student.delete or student.clear or student.reserve or student.sees_all)
    assert student.user == "grace@school.edu"


def test_with_sign_in_and_no_teacher_named_nobody_deletes():
    """A half-set server stays safe: every signed-in user is a student until the host names a teacher."""
    assert rights(ADA, RoleSettings()).role is Role.STUDENT


@pytest.mark.parametrize(
    ("entries", "email", "expected"),
    [
        (("school.edu",), "ada@school.edu", True),
        (("@School.edu",), "ADA@school.edu", True),
        (("ada@school.edu",), "grace@school.edu", False),
        (("school.edu",), "ada@evil-school.edu", False),
        (("",), "ada@school.edu", False),
        (("school.edu",), None, False),
    ],
)
def test_teachers_are_named_by_address_or_domain(entries, email, expected):
    """Whole addresses or domains match, case aside; a blank entry or a missing address never does."""
    assert email_matches(email, entries) is expected


def test_a_teacher_address_the_provider_has_not_verified_is_a_student():
    """An unverified e-mail could be anyone's: it does not make a teacher."""
    assert rights({**ADA, "email_verified": False}, TEACHERS).role is Role.STUDENT


@pytest.mark.parametrize("groups", [["staff", "teachers"], "teachers", ("teachers",)])
def test_a_group_claim_names_teachers(groups):
    """Members of the host's teacher group are teachers, the claim a list or one string."""
    settings = RoleSettings(teacher_group="teachers", group_claim="roles")
    assert rights({**GRACE, "roles": groups}, settings).role is Role.TEACHER
    assert rights({**GRACE, "groups": groups}, settings).role is Role.STUDENT, "only the named claim counts"
    assert rights({**GRACE, "roles": ["student"]}, settings).role is Role.STUDENT


def test_the_settings_come_from_the_environment(monkeypatch):
    """Teachers as a list with commas or spaces, the group and its claim, and the two switches."""
    monkeypatch.setenv("LINECNN_TEACHERS", "ada@school.edu, staff.school.edu  @x.org")
    monkeypatch.setenv("LINECNN_TEACHER_GROUP", " teachers ")
    monkeypatch.setenv("LINECNN_GROUP_CLAIM", "roles")
    monkeypatch.setenv("LINECNN_HOSTED", "yes")
    monkeypatch.setenv("LINECNN_VIEWERS_MAY_DELETE", "1")
    settings = RoleSettings.from_env()
    assert settings.teachers == ("ada@school.edu", "staff.school.edu", "@x.org")
    assert (settings.teacher_group, settings.group_claim) == ("teachers", "roles")
    assert settings.hosted and settings.viewers_delete


def test_the_hosting_profile_means_hosted_unless_the_host_says_otherwise(monkeypatch):
    """The profile marks a class's server; LINECNN_HOSTED=0 overrides it, and a typo keeps the default."""
    monkeypatch.delenv("LINECNN_HOSTED", raising=False)
    assert RoleSettings.from_env(profile_hosted=True).hosted
    assert not RoleSettings.from_env().hosted
    monkeypatch.setenv("LINECNN_HOSTED", "0")
    assert not RoleSettings.from_env(profile_hosted=True).hosted
    monkeypatch.setenv("LINECNN_HOSTED", "perhaps")
    assert RoleSettings.from_env(profile_hosted=True).hosted
    with pytest.raises(ValueError, match="LINECNN_GROUP_CLAIM must name a claim"):
        RoleSettings(group_claim=" ")


def test_a_reservation_refuses_students_until_its_time_is_up():
    """While reserved a student's run is refused (by whom, until when); a teacher's is not; then it ends."""
    held = reservation.reserve("Ada Lovelace", 30, now=NOW)
    try:
        assert held.until == NOW + timedelta(minutes=30)
        assert reservation.current(NOW + timedelta(minutes=29)) == held
        student, teacher = rights(GRACE, TEACHERS), rights(ADA, TEACHERS)
        assert benchmark_refusal(student, held) == held
        assert benchmark_refusal(teacher, held) is None
        assert reservation.current(NOW + timedelta(minutes=30)) is None, "it ends on time"
        assert benchmark_refusal(student, None) is None
    finally:
        reservation.release()


def test_a_reservation_lasts_one_minute_to_a_lesson_and_can_be_ended_early():
    """Zero or over MAX_MINUTES is a sentence; Release ends it at once."""
    for minutes in (0, reservation.MAX_MINUTES + 1):
        with pytest.raises(ValueError, match="from 1 to 240 minutes"):
            reservation.reserve("Ada", minutes)
    reservation.reserve("Ada", 5)
    reservation.release()
    assert reservation.current() is None


@pytest.mark.parametrize(
    ("signed_in", "settings", "said"),
    [
        (True, RoleSettings(), "no teacher is named (LINECNN_TEACHERS, LINECNN_TEACHER_GROUP): nobody"),
        (True, RoleSettings(teachers=("ada@school.edu", "staff.org")), "Teachers: ada@school.edu, staff.org"),
        (True, RoleSettings(teacher_group="staff"), "members of the group 'staff' (claim 'groups')"),
        (False, RoleSettings(hosted=True), "nobody may delete runs from the page (LINECNN_VIEWERS_MAY"),
        (False, RoleSettings(hosted=True, viewers_delete=True), "every viewer may delete runs"),
        (False, RoleSettings(), "whoever opens the app may delete runs"),
    ],
)
def test_the_start_up_log_says_who_may_delete_so_a_missed_teacher_setting_shows(signed_in, settings, said):
    """A host who forgot LINECNN_TEACHERS (or quoted it wrong in a unit) reads so in the server's log."""
    assert said in start_up_line(signed_in, settings)
