//! brine: the ZMTP writer of one connection.
//!
//! Upstream writes through `asynchronous_codec::FramedWrite`, which copies
//! every frame into a buffer of its own: 8 KiB allocated per connection
//! at its start, grown to the largest message the connection ever sent and
//! kept for its life. A master's connections to 10,000 minions held
//! hundreds of megabytes that way while idle, and every reply of hundreds
//! of kilobytes (compiled states, returns) was copied once more on its way
//! out. This writer queues a large frame as the `Bytes` it already is and
//! copies only headers and small frames (gathered so that a burst of small
//! messages is still written in few calls); once everything is written it
//! holds no buffer.

use super::error::{CodecError, CodecResult};
use super::framed::FrameableWrite;
use super::zmq_codec::frame_header;
use super::Message;

use bytes::{Buf, Bytes, BytesMut};
use futures::{AsyncWrite, Sink};

use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// Frames up to this size are copied next to their header; larger ones
/// are queued as they are.
const COPY_AT_MOST: usize = 4096;

/// Queued bytes past which the sink asks its feeder to wait (upstream's
/// `FramedWrite` used the same mark: a little over half of a default TCP
/// send buffer).
const HIGH_WATER_MARK: usize = 128 * 1024;

/// Most queued chunks handed to one vectored write.
const MAX_SLICES: usize = 32;

pub struct ZmqFramedWrite {
    inner: Box<dyn FrameableWrite>,
    /// Headers and small frames not yet cut into `queue`.
    staging: BytesMut,
    /// Chunks ready to write, in order.
    queue: VecDeque<Bytes>,
    /// Bytes in `queue` and `staging` not yet written.
    queued: usize,
}

impl ZmqFramedWrite {
    pub(crate) fn new(inner: Box<dyn FrameableWrite>) -> Self {
        Self {
            inner,
            staging: BytesMut::new(),
            queue: VecDeque::new(),
            queued: 0,
        }
    }

    fn stage(&mut self, bytes: &[u8]) {
        self.staging.extend_from_slice(bytes);
        self.queued += bytes.len();
    }

    /// Move what `staging` holds to the end of `queue`.
    fn cut_staging(&mut self) {
        if !self.staging.is_empty() {
            self.queue.push_back(self.staging.split().freeze());
        }
    }

    fn push(&mut self, message: Message) {
        match message {
            Message::Greeting(greeting) => self.stage(&BytesMut::from(greeting)),
            Message::Command(command) => self.stage(&BytesMut::from(command)),
            Message::Message(message) => {
                let last = message.len().saturating_sub(1);
                for (idx, frame) in message.into_vecdeque().into_iter().enumerate() {
                    let (header, len) = frame_header(frame.len(), idx != last);
                    self.stage(&header[..len]);
                    if frame.len() <= COPY_AT_MOST {
                        self.stage(&frame);
                    } else {
                        self.cut_staging();
                        self.queued += frame.len();
                        self.queue.push_back(frame);
                    }
                }
            }
        }
    }

    /// Write until no more than `keep` bytes are queued.
    fn poll_write_down_to(&mut self, cx: &mut Context<'_>, keep: usize) -> Poll<CodecResult<()>> {
        if self.queued > keep {
            self.cut_staging();
        }
        while self.queued > keep {
            let mut slices = [IoSlice::new(&[]); MAX_SLICES];
            let mut count = 0;
            for (slice, chunk) in slices.iter_mut().zip(self.queue.iter()) {
                *slice = IoSlice::new(chunk);
                count += 1;
            }
            let written =
                ready!(Pin::new(&mut self.inner).poll_write_vectored(cx, &slices[..count]))?;
            if written == 0 {
                return Poll::Ready(Err(io::Error::from(io::ErrorKind::WriteZero).into()));
            }
            self.consume(written);
        }
        if self.queue.is_empty() && self.staging.is_empty() {
            // Nothing waits: hold no buffer while the connection idles.
            self.staging = BytesMut::new();
        }
        Poll::Ready(Ok(()))
    }

    /// Drop `written` bytes from the front of the queue.
    fn consume(&mut self, mut written: usize) {
        self.queued = self.queued.saturating_sub(written);
        while written > 0 {
            let Some(front) = self.queue.front_mut() else {
                break;
            };
            if written >= front.len() {
                written -= front.len();
                self.queue.pop_front();
            } else {
                front.advance(written);
                written = 0;
            }
        }
    }
}

impl Sink<Message> for ZmqFramedWrite {
    type Error = CodecError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CodecResult<()>> {
        let this = self.get_mut();
        if this.queued < HIGH_WATER_MARK {
            return Poll::Ready(Ok(()));
        }
        this.poll_write_down_to(cx, HIGH_WATER_MARK - 1)
    }

    fn start_send(self: Pin<&mut Self>, item: Message) -> CodecResult<()> {
        self.get_mut().push(item);
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CodecResult<()>> {
        let this = self.get_mut();
        ready!(this.poll_write_down_to(cx, 0))?;
        Pin::new(&mut this.inner)
            .poll_flush(cx)
            .map_err(CodecError::from)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CodecResult<()>> {
        ready!(self.as_mut().poll_flush(cx))?;
        Pin::new(&mut self.get_mut().inner)
            .poll_close(cx)
            .map_err(CodecError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{ZmqCodec, ZmqGreeting};
    use crate::ZmqMessage;
    use asynchronous_codec::Encoder;
    use futures::SinkExt;
    use parking_lot::Mutex;
    use std::sync::Arc;

    /// Takes at most `step` bytes per call (0: all), one slice at a time
    /// as tokio's compat layer does, and records them.
    struct Recorder {
        out: Arc<Mutex<Vec<u8>>>,
        step: usize,
    }

    impl AsyncWrite for Recorder {
        fn poll_write(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let n = if self.step == 0 {
                buf.len()
            } else {
                buf.len().min(self.step)
            };
            self.out.lock().extend_from_slice(&buf[..n]);
            Poll::Ready(Ok(n))
        }
        fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn messages() -> Vec<Message> {
        let big = Bytes::from((0..300_000u32).map(|i| i as u8).collect::<Vec<_>>());
        let mut routed = ZmqMessage::from(big.clone());
        routed.push_front(Bytes::new());
        routed.push_front(Bytes::from_static(b"peer-7"));
        vec![
            Message::Greeting(ZmqGreeting::default()),
            Message::Message(ZmqMessage::from("small")),
            Message::Message(routed),
            Message::Message(ZmqMessage::from(Bytes::from(vec![7u8; COPY_AT_MOST]))),
            Message::Message(ZmqMessage::from(Bytes::from(vec![9u8; COPY_AT_MOST + 1]))),
            Message::Message(ZmqMessage::from(big)),
        ]
    }

    /// What upstream's codec writes for the same messages.
    fn encoded(messages: &[Message]) -> Vec<u8> {
        let mut codec = ZmqCodec::new();
        let mut out = BytesMut::new();
        for m in messages {
            codec.encode(m.clone(), &mut out).unwrap();
        }
        out.to_vec()
    }

    #[crate::async_rt::test]
    async fn writes_what_the_codec_encodes_and_then_holds_nothing() {
        for step in [0, 1000, 4096, 70_000] {
            let out = Arc::new(Mutex::new(Vec::new()));
            let mut writer = ZmqFramedWrite::new(Box::new(Recorder {
                out: out.clone(),
                step,
            }));
            for m in messages() {
                writer.feed(m).await.unwrap();
            }
            writer.flush().await.unwrap();
            assert_eq!(*out.lock(), encoded(&messages()), "step {step}");
            assert_eq!(writer.queued, 0);
            assert!(writer.queue.is_empty());
            assert_eq!(writer.staging.capacity(), 0, "an idle writer keeps no buffer");
        }
    }

    #[test]
    fn a_large_frame_is_queued_not_copied() {
        let big = Bytes::from(vec![1u8; 100_000]);
        let mut writer = ZmqFramedWrite::new(Box::new(Recorder {
            out: Arc::default(),
            step: 0,
        }));
        writer.push(Message::Message(ZmqMessage::from(big.clone())));
        let queued: Vec<_> = writer.queue.iter().collect();
        assert_eq!(queued.len(), 2, "the staged header, then the frame");
        assert_eq!(queued[1].as_ptr(), big.as_ptr());
        assert_eq!(writer.queued, 9 + big.len());
    }
}
