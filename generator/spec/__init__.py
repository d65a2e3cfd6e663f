"""Reading a spec: load and validate the YAML, the model, expressions and types."""
