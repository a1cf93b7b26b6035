"""Run warnings: problems met reading a run's files, shown on the run.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(
            sa.Column("warnings_json", sa.Text(), nullable=False, server_default="{}")
        )


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("warnings_json")
