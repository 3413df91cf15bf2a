"""The data every layer reads: findings and fixes, the rule registry (metadata only), settings,
`# noqa`, reading source files, atomic writes, the shipped torch data. Imports nothing else of zlint
and no LibCST."""
