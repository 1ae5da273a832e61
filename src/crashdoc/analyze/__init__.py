"""Analysis: candidate errors from parsed evidence, classified by the knowledge base, ranked per attempt."""
