"""The widgets of the steer screen: file view, prompt, status line, test panel."""
