//! Loopback fake model APIs, so the real agent CLIs run offline in tests:
//!
//! - [`FakeAnthropic`]: the Messages API as Claude Code calls it (`POST /v1/messages`, any query
//!   string, SSE when `"stream": true`, JSON otherwise), answering from a per-test script of
//!   assistant turns, plus harmless answers to whatever else the CLI asks at start-up.
//! - [`FakeOpenAi`]: the Responses API as codex calls it (`POST /v1/responses`, SSE) and chat
//!   completions (`POST /v1/chat/completions`, SSE or JSON) for opencode and other
//!   OpenAI-compatible clients, with modes for 5xx, slow and garbage replies.
//!
//! Both record every request (method, path, headers, JSON body) for assertions. A tiny
//! HTTP/1.1 server on 127.0.0.1:0: one thread per connection, one request per connection
//! (`Connection: close`), stopped when the fake is dropped.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

/// One request as the fake received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Path and query string, e.g. `/v1/messages?beta=true`.
    pub path: String,
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; a body that is not JSON is kept as a JSON string; none is null.
    pub body: Value,
}

impl Request {
    /// The path without its query string.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or("")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The names of the tools offered in the body (`tools[].name`, or `tools[].function.name`
    /// for chat completions).
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["name"].as_str().or(t["function"]["name"].as_str()))
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// What the server sends back.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    /// Waited before anything is written (the "slow" mode).
    delay: Duration,
}

impl Reply {
    fn json(status: u16, body: &Value) -> Self {
        Reply {
            status,
            content_type: "application/json",
            body: body.to_string().into_bytes(),
            delay: Duration::ZERO,
        }
    }

    fn sse(events: &[(&str, Value)]) -> Self {
        let mut body = String::new();
        for (name, data) in events {
            body.push_str(&format!("event: {name}\ndata: {data}\n\n"));
        }
        Reply {
            status: 200,
            content_type: "text/event-stream",
            body: body.into_bytes(),
            delay: Duration::ZERO,
        }
    }
}

type Handler = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;

/// The HTTP/1.1 server shared by both fakes.
struct Server {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    requests: Arc<Mutex<Vec<Request>>>,
    acceptor: Option<JoinHandle<()>>,
}

impl Server {
    fn start(handler: Handler) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let stopping = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let acceptor = {
            let stopping = Arc::clone(&stopping);
            let requests = Arc::clone(&requests);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let handler = Arc::clone(&handler);
                    let requests = Arc::clone(&requests);
                    std::thread::spawn(move || serve(stream, &handler, &requests));
                }
            })
        };
        Server {
            addr,
            stopping,
            requests,
            acceptor: Some(acceptor),
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept so the thread sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// Reads one request, records it, writes the handler's reply, closes the connection.
fn serve(stream: TcpStream, handler: &Handler, requests: &Mutex<Vec<Request>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let Some(request) = read_request(&mut reader, &mut writer) else {
        return;
    };
    requests.lock().unwrap().push(request.clone());
    let reply = handler(&request);
    std::thread::sleep(reply.delay);
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: {}\r\ncontent-length: {}\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
        reply.status,
        reason(reply.status),
        reply.content_type,
        reply.body.len()
    );
    let _ = writer.write_all(head.as_bytes());
    let _ = writer.write_all(&reply.body);
    let _ = writer.flush();
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn read_request(reader: &mut BufReader<TcpStream>, writer: &mut TcpStream) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    if find("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").ok()?;
    }
    let raw =
        if find("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
            read_chunked(reader)?
        } else {
            let length = find("content-length")
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            reader.read_exact(&mut body).ok()?;
            body
        };
    let body = if raw.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&raw)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&raw).into_owned()))
    };
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).ok()?;
        let size = usize::from_str_radix(size.trim().split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            // Trailers, then the empty line.
            loop {
                let mut trailer = String::new();
                if reader.read_line(&mut trailer).ok()? == 0 || trailer.trim().is_empty() {
                    return Some(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).ok()?;
        let mut crlf = [0; 2];
        reader.read_exact(&mut crlf).ok()?;
    }
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages API

/// One content block of a scripted assistant turn.
#[derive(Debug, Clone)]
pub enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

/// One scripted assistant turn; its stop reason is `tool_use` when it has a tool call.
#[derive(Debug, Clone)]
pub struct Turn {
    pub blocks: Vec<Block>,
}

static TOOL_USE_IDS: AtomicUsize = AtomicUsize::new(1);

impl Turn {
    pub fn text(text: impl Into<String>) -> Turn {
        Turn {
            blocks: vec![Block::Text(text.into())],
        }
    }

    /// A turn that calls one tool (with a fresh `toolu_…` id).
    pub fn tool_use(name: &str, input: Value) -> Turn {
        Turn { blocks: Vec::new() }.and_tool_use(name, input)
    }

    pub fn and_text(mut self, text: impl Into<String>) -> Turn {
        self.blocks.push(Block::Text(text.into()));
        self
    }

    pub fn and_tool_use(mut self, name: &str, input: Value) -> Turn {
        let id = format!(
            "toolu_fake{:06}",
            TOOL_USE_IDS.fetch_add(1, Ordering::SeqCst)
        );
        self.blocks.push(Block::ToolUse {
            id,
            name: name.to_string(),
            input,
        });
        self
    }

    fn stop_reason(&self) -> &'static str {
        if self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }))
        {
            "tool_use"
        } else {
            "end_turn"
        }
    }
}

/// The text of the turn served when the script has run out.
pub const DEFAULT_REPLY: &str = "Done: nothing else to do.";

/// A fake Anthropic API. Each `POST /v1/messages` takes the next scripted turn (or a short
/// default text turn when the script is empty).
pub struct FakeAnthropic {
    server: Server,
    script: Arc<Mutex<VecDeque<Turn>>>,
    routes: Arc<Mutex<Vec<Route>>>,
}

/// Turns reserved for the model calls whose body contains `needle`.
struct Route {
    needle: String,
    turns: VecDeque<Turn>,
}

impl FakeAnthropic {
    pub fn start() -> FakeAnthropic {
        let script: Arc<Mutex<VecDeque<Turn>>> = Arc::default();
        let routes: Arc<Mutex<Vec<Route>>> = Arc::default();
        let handler = {
            let script = Arc::clone(&script);
            let routes = Arc::clone(&routes);
            Arc::new(move |request: &Request| anthropic_reply(request, &script, &routes)) as Handler
        };
        FakeAnthropic {
            server: Server::start(handler),
            script,
            routes,
        }
    }

    /// Queues an assistant turn for the model calls whose JSON body contains `needle` (e.g. a
    /// judge's prompt marker, when a judge CLI shares the fake with the session it judges).
    /// Such calls take from this queue, not from the main script.
    pub fn push_when(&self, needle: &str, turn: Turn) -> &Self {
        let mut routes = self.routes.lock().unwrap();
        match routes.iter_mut().find(|r| r.needle == needle) {
            Some(route) => route.turns.push_back(turn),
            None => routes.push(Route {
                needle: needle.to_string(),
                turns: VecDeque::from([turn]),
            }),
        }
        self
    }

    /// Queues an assistant turn.
    pub fn push(&self, turn: Turn) -> &Self {
        self.script.lock().unwrap().push_back(turn);
        self
    }

    /// For `ANTHROPIC_BASE_URL`: `http://127.0.0.1:PORT` (the CLI adds `/v1/...`).
    pub fn base_url(&self) -> String {
        self.server.url()
    }

    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    /// The `POST /v1/messages` requests (the model calls), in order.
    pub fn message_requests(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.route() == "/v1/messages")
            .collect()
    }

    /// The environment that points Claude Code at this fake and keeps it offline (SPEC §2).
    pub fn claude_env(&self) -> Vec<(String, String)> {
        [
            ("ANTHROPIC_BASE_URL", self.base_url()),
            ("ANTHROPIC_API_KEY", "dummy".to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
            ("DISABLE_AUTOUPDATER", "1".to_string()),
            ("DISABLE_TELEMETRY", "1".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

fn anthropic_reply(
    request: &Request,
    script: &Mutex<VecDeque<Turn>>,
    routes: &Mutex<Vec<Route>>,
) -> Reply {
    match (request.method.as_str(), request.route()) {
        ("POST", "/v1/messages") => {
            let body = request.body.to_string();
            let routed = routes
                .lock()
                .unwrap()
                .iter_mut()
                .find(|r| body.contains(&r.needle))
                .map(|r| r.turns.pop_front());
            let turn = match routed {
                Some(turn) => turn,
                None => script.lock().unwrap().pop_front(),
            }
            .unwrap_or_else(|| Turn::text(DEFAULT_REPLY));
            let model = request.body["model"]
                .as_str()
                .unwrap_or("claude-fake")
                .to_string();
            if request.body["stream"] == Value::Bool(true) {
                anthropic_stream(&turn, &model)
            } else {
                Reply::json(200, &anthropic_message(&turn, &model))
            }
        }
        ("POST", "/v1/messages/count_tokens") => Reply::json(200, &json!({"input_tokens": 12})),
        ("GET", "/v1/models") => Reply::json(
            200,
            &json!({"data": [], "has_more": false, "first_id": null, "last_id": null}),
        ),
        _ => Reply::json(200, &json!({})),
    }
}

fn anthropic_usage(output_tokens: usize) -> Value {
    json!({
        "input_tokens": 12,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0
    })
}

fn anthropic_message(turn: &Turn, model: &str) -> Value {
    let content: Vec<Value> = turn
        .blocks
        .iter()
        .map(|block| match block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        })
        .collect();
    json!({
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": turn.stop_reason(),
        "stop_sequence": null,
        "usage": anthropic_usage(8)
    })
}

fn anthropic_stream(turn: &Turn, model: &str) -> Reply {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": anthropic_usage(1)
        }}),
    )];
    for (index, block) in turn.blocks.iter().enumerate() {
        let (start, delta) = match block {
            Block::Text(text) => (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": text}),
            ),
            Block::ToolUse { id, name, input } => (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            ),
        };
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ));
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": turn.stop_reason(), "stop_sequence": null},
               "usage": {"output_tokens": 8}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    Reply::sse(&events)
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses and chat completions

/// How the OpenAI fake answers the model calls.
#[derive(Debug, Clone)]
pub enum OpenAiMode {
    /// A normal reply with this assistant text.
    Reply(String),
    /// This HTTP status (e.g. 500, 503) with an error body.
    ServerError(u16),
    /// Waits this long, then replies with the text.
    Slow(Duration, String),
    /// Status 200 with a body that is neither a valid event stream nor JSON.
    Garbage,
}

pub struct FakeOpenAi {
    server: Server,
    mode: Arc<Mutex<OpenAiMode>>,
    routes: Arc<Mutex<Vec<ResponsesRoute>>>,
}

/// One scripted Responses API turn of a coding session: assistant text, a call of Codex's
/// shell tool (`exec_command` with `{"cmd": ...}`, as Codex 0.171.0 offers it), or a call of
/// any other tool the request offered, by name.
#[derive(Debug, Clone)]
pub enum ResponsesTurn {
    Text(String),
    Shell {
        call_id: String,
        command: String,
    },
    Call {
        call_id: String,
        name: String,
        arguments: Value,
    },
    /// A freeform (custom) tool call: Codex's code-mode `exec` takes JavaScript that calls the
    /// nested tools (`await tools.mcp__docs__search({...})`).
    Custom {
        call_id: String,
        name: String,
        input: String,
    },
}

static CALL_IDS: AtomicUsize = AtomicUsize::new(1);

impl ResponsesTurn {
    pub fn text(text: impl Into<String>) -> Self {
        ResponsesTurn::Text(text.into())
    }

    /// A shell call with a fresh `call_…` id.
    pub fn shell(command: &str) -> Self {
        ResponsesTurn::Shell {
            call_id: fresh_call_id(),
            command: command.to_string(),
        }
    }

    /// A call of the tool `name` with `arguments`, with a fresh `call_…` id.
    pub fn call(name: &str, arguments: Value) -> Self {
        ResponsesTurn::Call {
            call_id: fresh_call_id(),
            name: name.to_string(),
            arguments,
        }
    }

    /// A freeform call of the tool `name` with `input`, with a fresh `call_…` id.
    pub fn custom(name: &str, input: &str) -> Self {
        ResponsesTurn::Custom {
            call_id: fresh_call_id(),
            name: name.to_string(),
            input: input.to_string(),
        }
    }

    /// The call id of a tool call turn.
    pub fn call_id(&self) -> Option<&str> {
        match self {
            ResponsesTurn::Text(_) => None,
            ResponsesTurn::Shell { call_id, .. }
            | ResponsesTurn::Call { call_id, .. }
            | ResponsesTurn::Custom { call_id, .. } => Some(call_id),
        }
    }
}

fn fresh_call_id() -> String {
    format!("call_fake{:06}", CALL_IDS.fetch_add(1, Ordering::SeqCst))
}

/// Turns reserved for the `/v1/responses` calls whose body contains `needle`.
struct ResponsesRoute {
    needle: String,
    turns: VecDeque<ResponsesTurn>,
}

impl FakeOpenAi {
    pub fn start(mode: OpenAiMode) -> FakeOpenAi {
        let mode = Arc::new(Mutex::new(mode));
        let routes: Arc<Mutex<Vec<ResponsesRoute>>> = Arc::default();
        let handler = {
            let mode = Arc::clone(&mode);
            let routes = Arc::clone(&routes);
            Arc::new(move |request: &Request| {
                if let Some(turn) = scripted_turn(request, &routes) {
                    return responses_turn(&turn);
                }
                openai_reply(request, &mode.lock().unwrap().clone())
            }) as Handler
        };
        FakeOpenAi {
            server: Server::start(handler),
            mode,
            routes,
        }
    }

    /// Queues a turn for the Responses calls whose JSON body contains `needle` (a session's
    /// prompt); other calls get the mode's reply. A session whose queue ran out gets the mode.
    pub fn push_when(&self, needle: &str, turn: ResponsesTurn) -> &Self {
        let mut routes = self.routes.lock().unwrap();
        match routes.iter_mut().find(|r| r.needle == needle) {
            Some(route) => route.turns.push_back(turn),
            None => routes.push(ResponsesRoute {
                needle: needle.to_string(),
                turns: VecDeque::from([turn]),
            }),
        }
        self
    }

    /// The Responses calls whose body contains `needle`, in order.
    pub fn requests_with(&self, needle: &str) -> Vec<Request> {
        self.model_requests()
            .into_iter()
            .filter(|r| r.route() == "/v1/responses" && r.body.to_string().contains(needle))
            .collect()
    }

    pub fn set_mode(&self, mode: OpenAiMode) {
        *self.mode.lock().unwrap() = mode;
    }

    /// The API base including `/v1` (what OpenAI clients call `base_url`).
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.url())
    }

    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    /// The model calls (`POST /v1/responses` and `POST /v1/chat/completions`), in order.
    pub fn model_requests(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| {
                r.method == "POST" && matches!(r.route(), "/v1/responses" | "/v1/chat/completions")
            })
            .collect()
    }

    /// `codex` flags that select this fake as its model provider (SPEC §2), with retries off
    /// so a failure mode is seen at once. The key is read from `$FAKE_KEY`.
    pub fn codex_provider_args(&self) -> Vec<String> {
        [
            "model_provider=\"fake\"".to_string(),
            "model_providers.fake.name=\"fake\"".to_string(),
            format!("model_providers.fake.base_url=\"{}\"", self.base_url()),
            "model_providers.fake.wire_api=\"responses\"".to_string(),
            "model_providers.fake.env_key=\"FAKE_KEY\"".to_string(),
            "model_providers.fake.request_max_retries=0".to_string(),
            "model_providers.fake.stream_max_retries=0".to_string(),
        ]
        .into_iter()
        .flat_map(|value| ["-c".to_string(), value])
        .collect()
    }
}

fn openai_reply(request: &Request, mode: &OpenAiMode) -> Reply {
    let route = request.route();
    if request.method == "GET" && route == "/v1/models" {
        return Reply::json(200, &json!({"object": "list", "data": []}));
    }
    if request.method != "POST" || !matches!(route, "/v1/responses" | "/v1/chat/completions") {
        return Reply::json(
            404,
            &json!({"error": {"message": format!("no route {route}"), "type": "not_found"}}),
        );
    }
    let (text, delay) = match mode {
        OpenAiMode::Reply(text) => (text.clone(), Duration::ZERO),
        OpenAiMode::Slow(delay, text) => (text.clone(), *delay),
        OpenAiMode::ServerError(status) => {
            return Reply::json(
                *status,
                &json!({"error": {"message": "fake server error", "type": "server_error"}}),
            );
        }
        OpenAiMode::Garbage => {
            return Reply {
                status: 200,
                content_type: "text/event-stream",
                body: b"data: {this is not json\n\n\x00\xff garbage\n\n".to_vec(),
                delay: Duration::ZERO,
            };
        }
    };
    let mut reply = if route == "/v1/responses" {
        responses_stream(&text)
    } else if request.body["stream"] == Value::Bool(true) {
        chat_stream(&text)
    } else {
        Reply::json(200, &chat_completion(&text))
    };
    reply.delay = delay;
    reply
}

fn scripted_turn(request: &Request, routes: &Mutex<Vec<ResponsesRoute>>) -> Option<ResponsesTurn> {
    if request.method != "POST" || request.route() != "/v1/responses" {
        return None;
    }
    let body = request.body.to_string();
    routes
        .lock()
        .unwrap()
        .iter_mut()
        .find(|r| body.contains(&r.needle))
        .and_then(|r| r.turns.pop_front())
}

fn responses_turn(turn: &ResponsesTurn) -> Reply {
    let (call_id, name, arguments) = match turn {
        ResponsesTurn::Text(text) => return responses_stream(text),
        ResponsesTurn::Custom {
            call_id,
            name,
            input,
        } => return custom_call_stream(call_id, name, input),
        ResponsesTurn::Shell { call_id, command } => (
            call_id,
            "exec_command",
            json!({ "cmd": command }).to_string(),
        ),
        ResponsesTurn::Call {
            call_id,
            name,
            arguments,
        } => (call_id, name.as_str(), arguments.to_string()),
    };
    let item = |arguments: &str, status: &str| {
        json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
               "name": name, "arguments": arguments, "status": status})
    };
    Reply::sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_fake", "status": "in_progress"}}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": item("", "in_progress")}),
        ),
        (
            "response.function_call_arguments.done",
            json!({"type": "response.function_call_arguments.done", "item_id": format!("fc_{call_id}"), "output_index": 0, "arguments": arguments}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item(&arguments, "completed")}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "resp_fake", "status": "completed", "usage": {
                "input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20
            }}}),
        ),
    ])
}

/// A Responses stream whose one output item is a freeform tool call.
fn custom_call_stream(call_id: &str, name: &str, input: &str) -> Reply {
    let item = |input: &str, status: &str| {
        json!({"type": "custom_tool_call", "id": format!("ctc_{call_id}"), "call_id": call_id,
               "name": name, "input": input, "status": status})
    };
    Reply::sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_fake", "status": "in_progress"}}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": item("", "in_progress")}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item(input, "completed")}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "resp_fake", "status": "completed", "usage": {
                "input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20
            }}}),
        ),
    ])
}

fn responses_stream(text: &str) -> Reply {
    let message = |content: Value| json!({"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed", "content": content});
    let done_text = json!([{"type": "output_text", "text": text, "annotations": []}]);
    Reply::sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_fake", "status": "in_progress"}}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": message(json!([]))}),
        ),
        (
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "item_id": "msg_fake", "output_index": 0, "content_index": 0, "delta": text}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": message(done_text)}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "resp_fake", "status": "completed", "usage": {
                "input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20
            }}}),
        ),
    ])
}

fn chat_completion(text: &str) -> Value {
    json!({
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 8, "total_tokens": 20}
    })
}

fn chat_stream(text: &str) -> Reply {
    let chunk = |delta: Value, finish: Value, usage: Value| {
        let mut chunk = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1,
               "model": "fake", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        if !usage.is_null() {
            chunk["usage"] = usage;
        }
        chunk
    };
    let body = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(
            json!({"role": "assistant", "content": text}),
            Value::Null,
            Value::Null
        ),
        chunk(
            json!({}),
            json!("stop"),
            json!({"prompt_tokens": 12, "completion_tokens": 8, "total_tokens": 20})
        ),
    );
    Reply {
        status: 200,
        content_type: "text/event-stream",
        body: body.into_bytes(),
        delay: Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends raw HTTP and returns the whole response (status line, headers, body).
    fn exchange(url: &str, raw: &str) -> String {
        let addr = url.trim_start_matches("http://").split('/').next().unwrap();
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(raw.as_bytes()).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        String::from_utf8_lossy(&response).into_owned()
    }

    fn post(url: &str, path: &str, body: &Value) -> String {
        let body = body.to_string();
        exchange(
            url,
            &format!(
                "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
    }

    /// The `data:` payloads of an event stream, as JSON.
    fn sse_data(response: &str) -> Vec<Value> {
        response
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| *d != "[DONE]")
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }

    #[test]
    fn anthropic_streams_the_scripted_turns_then_a_default_turn() {
        let fake = FakeAnthropic::start();
        fake.push(Turn::text("first").and_tool_use("Read", json!({"file_path": "/x"})));
        let request = json!({"model": "m", "stream": true, "messages": []});
        let response = post(&fake.base_url(), "/v1/messages?beta=true", &request);
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(response.contains("content-type: text/event-stream"));
        let events = sse_data(&response);
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(events[2]["delta"]["text"], "first");
        assert_eq!(events[4]["content_block"]["name"], "Read");
        let input: Value =
            serde_json::from_str(events[5]["delta"]["partial_json"].as_str().unwrap()).unwrap();
        assert_eq!(input, json!({"file_path": "/x"}));
        assert_eq!(events[7]["delta"]["stop_reason"], "tool_use");

        let response = post(
            &fake.base_url(),
            "/v1/messages",
            &json!({"model": "m", "messages": []}),
        );
        let body: Value = serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["content"][0]["text"], DEFAULT_REPLY);
        assert_eq!(body["stop_reason"], "end_turn");

        let recorded = fake.message_requests();
        assert_eq!(recorded.len(), 2);
        assert_eq!(recorded[0].path, "/v1/messages?beta=true");
        assert_eq!(recorded[0].body["stream"], true);
    }

    #[test]
    fn anthropic_answers_start_up_calls_harmlessly_and_reads_chunked_bodies() {
        let fake = FakeAnthropic::start();
        let response = post(
            &fake.base_url(),
            "/v1/messages/count_tokens",
            &json!({"messages": []}),
        );
        assert!(response.contains("\"input_tokens\":12"), "{response}");
        let chunked = "POST /api/hello HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n7\r\n{\"a\": 1\r\n1\r\n}\r\n0\r\n\r\n";
        assert!(exchange(&fake.base_url(), chunked).starts_with("HTTP/1.1 200"));
        let requests = fake.requests();
        assert_eq!(requests[1].body, json!({"a": 1}));
        assert!(fake.message_requests().is_empty());
    }

    #[test]
    fn openai_serves_responses_and_chat_completions() {
        let fake = FakeOpenAi::start(OpenAiMode::Reply("scripted".into()));
        let response = post(
            &fake.base_url().replace("/v1", ""),
            "/v1/responses",
            &json!({"input": []}),
        );
        let events = sse_data(&response);
        assert_eq!(events.first().unwrap()["type"], "response.created");
        let done = events.last().unwrap();
        assert_eq!(done["type"], "response.completed");
        assert_eq!(done["response"]["usage"]["total_tokens"], 20);
        assert!(events.iter().any(|e| e["delta"] == "scripted"));

        let url = fake.base_url().replace("/v1", "");
        let streamed = sse_data(&post(
            &url,
            "/v1/chat/completions",
            &json!({"stream": true}),
        ));
        assert_eq!(streamed[0]["choices"][0]["delta"]["content"], "scripted");
        let plain = post(&url, "/v1/chat/completions", &json!({"stream": false}));
        assert!(plain.contains("\"content\":\"scripted\""), "{plain}");
        assert_eq!(fake.model_requests().len(), 3);
    }

    #[test]
    fn openai_failure_modes() {
        let fake = FakeOpenAi::start(OpenAiMode::ServerError(503));
        let url = fake.base_url().replace("/v1", "");
        assert!(post(&url, "/v1/responses", &json!({})).starts_with("HTTP/1.1 503"));
        fake.set_mode(OpenAiMode::Garbage);
        let garbage = post(&url, "/v1/responses", &json!({}));
        assert!(garbage.starts_with("HTTP/1.1 200") && garbage.contains("not json"));
        fake.set_mode(OpenAiMode::Slow(Duration::from_millis(50), "late".into()));
        assert!(post(&url, "/v1/responses", &json!({})).contains("late"));
        assert!(post(&url, "/v1/other", &json!({})).starts_with("HTTP/1.1 404"));
    }
}
