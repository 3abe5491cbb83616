"""What tests share: waiting for a condition (`waiting`), a clock that moves only when told
(`clock`), the report of asyncio tasks left behind (`tasks`), real Flotilla processes
(`processes`) and kubectl against them (`kubectl`); nothing that belongs to one area only."""
