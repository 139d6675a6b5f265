"""TRN procedural terrain generator files: exact reader/writer, model and vectorised evaluator."""
