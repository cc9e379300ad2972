"""The agent: a ReAct loop over litellm that emits events and knows nothing of the terminal."""
