"""What tests share: waiting for a condition (`waiting`), the leak report of asyncio tasks (`tasks`),
real Flotilla processes (`processes`) and kubectl against them (`kubectl`); nothing that belongs to
one area only."""
