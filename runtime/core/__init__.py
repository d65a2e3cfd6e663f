"""What generated modules import: records, streams, integers, checksums, errors,
limits, spans and the tier loader."""
