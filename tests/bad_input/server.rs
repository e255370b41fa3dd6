//! A misbehaving HTTP server for the bad-input suite: it answers every request with one canned,
//! raw response (malformed, truncated, huge) and counts what it was asked.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the server sends back for every request.
#[derive(Clone)]
pub enum Answer {
    /// These exact bytes, then the connection is closed.
    Raw(Vec<u8>),
    /// A 200 with this JSON (or not-JSON) body and extra header lines; `{base}` in the headers
    /// is replaced by the server's own `http://127.0.0.1:PORT`.
    Body {
        status: &'static str,
        headers: Vec<String>,
        body: Vec<u8>,
    },
}

/// A running server; its requests are recorded as `METHOD PATH`.
pub struct Server {
    pub base: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub async fn start(answer: Answer) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let own = base.clone();
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let seen = Arc::clone(&seen);
                let answer = answer.clone();
                let own = own.clone();
                tokio::spawn(async move {
                    // One request per connection: read the head (bodies are not expected).
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match sock.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                        if head.len() > 64 * 1024 {
                            return;
                        }
                    }
                    let line = String::from_utf8_lossy(&head)
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_owned();
                    let mut parts = line.split_whitespace();
                    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                    seen.lock().unwrap().push(format!("{method} {path}"));
                    let bytes = match answer {
                        Answer::Raw(b) => b,
                        Answer::Body {
                            status,
                            headers,
                            body,
                        } => {
                            let mut out = format!(
                                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                                body.len()
                            );
                            for h in headers {
                                out.push_str(&h.replace("{base}", &own));
                                out.push_str("\r\n");
                            }
                            out.push_str("\r\n");
                            let mut b = out.into_bytes();
                            b.extend_from_slice(&body);
                            b
                        }
                    };
                    let _ = sock.write_all(&bytes).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        Server { base, requests }
    }

    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// Requests other than GET.
    pub fn mutating(&self) -> usize {
        self.requests()
            .iter()
            .filter(|r| !r.starts_with("GET "))
            .count()
    }
}

/// A 200 with `body` as JSON.
pub fn ok(body: &str) -> Answer {
    Answer::Body {
        status: "200 OK",
        headers: Vec::new(),
        body: body.as_bytes().to_vec(),
    }
}

/// A 200 with `body` and extra headers.
pub fn ok_with(body: &str, headers: &[&str]) -> Answer {
    Answer::Body {
        status: "200 OK",
        headers: headers.iter().map(|h| (*h).to_owned()).collect(),
        body: body.as_bytes().to_vec(),
    }
}
