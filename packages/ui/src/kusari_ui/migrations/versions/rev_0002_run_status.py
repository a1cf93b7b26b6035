"""Run status: the job's status file as served, and the log's write rhythm.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(
            sa.Column("status_json", sa.Text(), nullable=False, server_default="{}")
        )
        batch.add_column(
            sa.Column("log_interval", sa.Float(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("log_interval")
        batch.drop_column("status_json")
