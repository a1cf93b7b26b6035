"""Initial schema: projects, results, log chunks, series caches.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False, unique=True),
        sa.Column("path", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("crawled_at", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "project_id",
            sa.Integer(),
            sa.ForeignKey("projects.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("path_name", sa.String(1024), nullable=False),
        sa.Column("name", sa.String(1024), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("args_json", sa.Text(), nullable=False),
        sa.Column("last_values_json", sa.Text(), nullable=False),
        sa.Column("n_entries", sa.Integer(), nullable=False),
        sa.Column("log_offset", sa.BigInteger(), nullable=False),
        sa.Column("log_size", sa.BigInteger(), nullable=False),
        sa.Column("log_mtime_ns", sa.BigInteger(), nullable=False),
        sa.Column("log_inode", sa.BigInteger(), nullable=False),
        sa.Column("log_digest", sa.String(64), nullable=False),
        sa.Column("args_mtime_ns", sa.BigInteger(), nullable=False),
        sa.Column("last_activity", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("project_id", "path_name"),
    )
    op.create_index("ix_results_project_id", "results", ["project_id"])
    op.create_table(
        "log_chunks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "result_id",
            sa.Integer(),
            sa.ForeignKey("results.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("start", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_index("ix_log_chunks_result_id", "log_chunks", ["result_id"])
    op.create_table(
        "series_cache",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "result_id",
            sa.Integer(),
            sa.ForeignKey("results.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("key", sa.String(512), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("points", sa.Text(), nullable=False),
        sa.UniqueConstraint("result_id", "key"),
    )
    op.create_index("ix_series_cache_result_id", "series_cache", ["result_id"])


def downgrade() -> None:
    op.drop_table("series_cache")
    op.drop_table("log_chunks")
    op.drop_table("results")
    op.drop_table("projects")
