"""A workspace of data and models that outlives the browser session: an SQLite store (:mod:`.store`),
where it lives (:mod:`.location`), and the app's training runs in it (:mod:`.runs`)."""

from tnt.workspace.location import default_folder, default_max_bytes
from tnt.workspace.store import Run, WorkspaceNotFound, WorkspaceStore, is_workspace_id

__all__ = ["Run", "WorkspaceNotFound", "WorkspaceStore", "default_folder", "default_max_bytes", "is_workspace_id"]
