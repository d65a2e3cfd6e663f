"""What a format needs beyond its spec: documented primitives, each with an example."""
