"""Events name the rule profile that judged them: a nullable ``events.profile``.

Rows stored before it keep NULL (the profile that judged them was not recorded).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("events", sa.Column("profile", sa.String(64), nullable=True))


def downgrade() -> None:
    # batch mode: SQLite drops a column by copying the table
    with op.batch_alter_table("events") as batch:
        batch.drop_column("profile")
