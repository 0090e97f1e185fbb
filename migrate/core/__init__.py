"""The converter's core: one :class:`~migrate.core.context.FileContext` per file, handed to the passes of
``migrate.core.pipeline`` in a declared order (see README's layout section)."""
