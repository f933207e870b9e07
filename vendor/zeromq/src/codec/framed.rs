use crate::codec::ZmqCodec;
use crate::SocketOptions;

use super::error::{CodecError, CodecResult};
use super::Message;

use super::framed_write::ZmqFramedWrite;
use asynchronous_codec::Decoder;
use bytes::BytesMut;
use futures::{AsyncRead, AsyncWrite, Stream};

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::limits::{ConnectionSlot, ViolationKind};

// Enables us to have multiple bounds on the dyn trait in `InnerFramed`
pub trait FrameableRead: AsyncRead + Unpin + Send + Sync {}
impl<T> FrameableRead for T where T: AsyncRead + Unpin + Send + Sync {}
pub trait FrameableWrite: AsyncWrite + Unpin + Send + Sync {}
impl<T> FrameableWrite for T where T: AsyncWrite + Unpin + Send + Sync {}

/// ZMTP framed reader with an adaptive read chunk.
///
/// Starts with a small read chunk and grows only when the transport keeps
/// filling the requested space. This avoids a large default allocation while
/// still reducing read/poll loops for large receive bursts. Short-read
/// recovery reduces initialization and allocation traffic after a burst ends.
pub struct ZmqFramedRead {
    inner: Box<dyn FrameableRead>,
    codec: ZmqCodec,
    buffer: BytesMut,
    read_chunk_size: usize,
    // Configuration is shared; adaptation state belongs to this connection.
    options: Arc<SocketOptions>,
    short_reads: usize,
    // brine: who the peer is (for violation reports), its connection slot,
    // the receive-budget bytes charged to it, its timers, and whether it
    // has been cut (a cut stream ends, so no caller polls it again).
    peer: Option<SocketAddr>,
    _slot: Option<ConnectionSlot>,
    charged: usize,
    timers: Timers,
    cut: bool,
}

impl ZmqFramedRead {
    pub(crate) fn new(inner: Box<dyn FrameableRead>, options: Arc<SocketOptions>) -> Self {
        Self {
            inner,
            codec: ZmqCodec::with_options(&options),
            buffer: BytesMut::with_capacity(options.read_buffer_initial_size),
            read_chunk_size: options.read_buffer_initial_size,
            options,
            short_reads: 0,
            peer: None,
            _slot: None,
            charged: 0,
            timers: Timers::default(),
            cut: false,
        }
    }

    /// Name the peer (for violation reports) and hold its connection slot
    /// for as long as this reader lives.
    pub(crate) fn attach(&mut self, peer: Option<SocketAddr>, slot: Option<ConnectionSlot>) {
        self.peer = peer;
        self._slot = slot;
    }

    /// brine: the connection's slot state, for the socket to trust it.
    pub(crate) fn slot_state(&self) -> Option<Arc<crate::limits::SlotState>> {
        self._slot.as_ref().map(|s| Arc::clone(s.state()))
    }

    /// brine: when an untrusted connection is to be cut for want of trust.
    fn trust_deadline(&self) -> Option<(std::time::Instant, ViolationKind)> {
        let timeout = self.options.limits.trust_timeout?;
        let state = self._slot.as_ref()?.state();
        (!state.trusted()).then(|| {
            (
                state.admitted + timeout,
                ViolationKind::NotTrusted { timeout },
            )
        })
    }

    /// Tell the socket's violation hook that this peer broke `kind`.
    pub(crate) fn report(&self, kind: ViolationKind) {
        self.options.limits.report(self.peer, kind);
    }

    /// Charge what this peer's unfinished message holds, past one read
    /// chunk, to the socket's receive budget.
    fn recharge(&mut self) -> CodecResult<()> {
        let limits = &self.options.limits;
        if limits.receive_budget.is_none() {
            return Ok(());
        }
        // Each connection may hold one read chunk for free, so that small
        // messages (every real request) pass even while others hold the
        // whole budget; the rest is charged.
        let held = (self.buffer.len() + self.codec.held_bytes())
            .saturating_sub(self.options.read_buffer_max_size);
        if !self
            .options
            .occupancy
            .recharge(self.charged, held, limits.receive_budget)
        {
            return Err(CodecError::Limit(ViolationKind::ReceiveBudget {
                budget: limits.receive_budget.unwrap_or(0),
            }));
        }
        self.charged = held;
        Ok(())
    }

    fn poll_read_into_buffer(
        &mut self,
        cx: &mut Context<'_>,
        min_read_size: usize,
    ) -> Poll<io::Result<usize>> {
        let start = self.buffer.len();
        let read_size = self
            .read_chunk_size
            .max(min_read_size)
            .min(self.options.read_buffer_max_size);

        // futures::AsyncRead requires an initialized &mut [u8]. Grow BytesMut
        // first, then trim back to the actual read length so the read path does
        // not need a scratch buffer and a second data copy.
        // The decoder checks frame length + maximum chunk size at the wire
        // boundary, so preparing this slice cannot overflow its length.
        self.buffer.resize(start + read_size, 0);

        match Pin::new(&mut self.inner).poll_read(cx, &mut self.buffer[start..]) {
            Poll::Ready(Ok(bytes_read)) => {
                self.buffer.truncate(start + bytes_read);
                if bytes_read >= read_size
                    && self.read_chunk_size < self.options.read_buffer_max_size
                {
                    self.read_chunk_size =
                        (self.read_chunk_size * 2).min(self.options.read_buffer_max_size);
                }
                if bytes_read > 0 && bytes_read < self.read_chunk_size / 2 {
                    self.short_reads += 1;
                    if self.short_reads == self.options.read_buffer_short_reads {
                        // Confirm short reads before shrinking: an isolated burst tail
                        // otherwise makes the next batch repeatedly grow and shrink.
                        // Leave room above the observation without increasing the chunk.
                        self.read_chunk_size = (bytes_read.next_power_of_two() * 2)
                            .max(self.options.read_buffer_initial_size * 2)
                            .min(self.read_chunk_size);
                        self.short_reads = 0;
                    }
                } else if bytes_read > 0 {
                    self.short_reads = 0;
                }
                Poll::Ready(Ok(bytes_read))
            }
            Poll::Ready(Err(error)) => {
                self.buffer.truncate(start);
                Poll::Ready(Err(error))
            }
            Poll::Pending => {
                self.buffer.truncate(start);
                Poll::Pending
            }
        }
    }
}

impl ZmqFramedRead {
    /// brine: between messages, with nothing more to read, give back a
    /// buffer grown past the first read chunk (frames already decoded keep
    /// their part of it for as long as they live): an idle connection
    /// holds no buffer sized by the largest message it ever received.
    fn release_idle_buffer(&mut self) {
        if !self.codec.mid_message(self.buffer.len())
            && self.buffer.capacity() > self.options.read_buffer_initial_size
        {
            self.buffer = BytesMut::new();
        }
    }
}

impl Drop for ZmqFramedRead {
    fn drop(&mut self) {
        if self.charged > 0 {
            self.options.occupancy.recharge(self.charged, 0, None);
        }
    }
}

/// brine: the message and idle deadlines of one reader.
#[derive(Default)]
struct Timers {
    message_started: Option<std::time::Instant>,
    last_byte: Option<std::time::Instant>,
    #[cfg(feature = "tokio-runtime")]
    sleep: Option<(std::time::Instant, Pin<Box<tokio::time::Sleep>>)>,
}

impl ZmqFramedRead {
    /// brine: cut the peer when a message it began is not finished within
    /// the message timeout, or nothing came for the idle timeout. Called
    /// when the socket has nothing more to read.
    fn poll_deadline(&mut self, cx: &mut Context<'_>) -> Poll<ViolationKind> {
        let limits = &self.options.limits;
        let now = std::time::Instant::now();
        let last_byte = *self.timers.last_byte.get_or_insert(now);
        if self.codec.mid_message(self.buffer.len()) {
            self.timers.message_started.get_or_insert(now);
        } else {
            self.timers.message_started = None;
        }
        let message = self
            .timers
            .message_started
            .zip(limits.message_timeout)
            .map(|(start, timeout)| (start + timeout, ViolationKind::MessageTimeout { timeout }));
        let idle = limits
            .idle_timeout
            .map(|timeout| (last_byte + timeout, ViolationKind::IdleTimeout { timeout }));
        let trust = self.trust_deadline();
        let Some((deadline, kind)) = [message, idle, trust]
            .into_iter()
            .flatten()
            .min_by_key(|d| d.0)
        else {
            return Poll::Pending;
        };
        if deadline <= now {
            return Poll::Ready(kind);
        }
        self.poll_sleep(cx, deadline, kind)
    }

    #[cfg(feature = "tokio-runtime")]
    fn poll_sleep(
        &mut self,
        cx: &mut Context<'_>,
        deadline: std::time::Instant,
        kind: ViolationKind,
    ) -> Poll<ViolationKind> {
        use std::future::Future;
        let at = tokio::time::Instant::from_std(deadline);
        match &mut self.timers.sleep {
            Some((set, sleep)) if *set == deadline => {
                if sleep.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(kind);
                }
            }
            slot => {
                let mut sleep = Box::pin(tokio::time::sleep_until(at));
                if sleep.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(kind);
                }
                *slot = Some((deadline, sleep));
            }
        }
        Poll::Pending
    }

    #[cfg(not(feature = "tokio-runtime"))]
    fn poll_sleep(
        &mut self,
        _cx: &mut Context<'_>,
        _deadline: std::time::Instant,
        _kind: ViolationKind,
    ) -> Poll<ViolationKind> {
        // The timeouts need tokio's timer; other runtimes go without.
        Poll::Pending
    }

    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<Option<CodecResult<Message>>> {
        let this = self;

        // Consume buffered data first; read from the socket only when the
        // current buffer cannot produce a full message.
        if let Some(item) = this.codec.decode(&mut this.buffer)? {
            return Poll::Ready(Some(Ok(item)));
        }

        loop {
            let min_read_size = this.codec.bytes_needed(this.buffer.len());
            let n = match this.poll_read_into_buffer(cx, min_read_size) {
                Poll::Ready(n) => n?,
                Poll::Pending => {
                    this.recharge()?;
                    this.release_idle_buffer();
                    return match this.poll_deadline(cx) {
                        Poll::Ready(kind) => Poll::Ready(Some(Err(CodecError::Limit(kind)))),
                        Poll::Pending => Poll::Pending,
                    };
                }
            };
            if n > 0 {
                this.timers.last_byte = Some(std::time::Instant::now());
            }
            let ended = n == 0;
            match this.codec.decode(&mut this.buffer)? {
                Some(item) => return Poll::Ready(Some(Ok(item))),
                None if ended => {
                    // Give the decoder one final chance at EOF; leftover bytes
                    // mean the stream ended with a truncated frame.
                    if this.buffer.is_empty() {
                        return Poll::Ready(None);
                    }
                    match this.codec.decode_eof(&mut this.buffer)? {
                        Some(item) => return Poll::Ready(Some(Ok(item))),
                        None if this.buffer.is_empty() => return Poll::Ready(None),
                        None => {
                            return Poll::Ready(Some(Err(CodecError::Io(io::Error::new(
                                io::ErrorKind::UnexpectedEof,
                                "bytes remaining in stream",
                            )))));
                        }
                    }
                }
                None => this.recharge()?,
            }
        }
    }
}

impl Stream for ZmqFramedRead {
    type Item = CodecResult<Message>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.cut {
            return Poll::Ready(None);
        }
        // brine: a peer that keeps sending is cut for want of trust too
        // (the deadline is otherwise looked at when nothing is to be read).
        let polled = match this.trust_deadline() {
            Some((deadline, kind)) if deadline <= std::time::Instant::now() => {
                Poll::Ready(Some(Err(CodecError::Limit(kind))))
            }
            _ => this.poll_message(cx),
        };
        match &polled {
            Poll::Ready(Some(Err(error))) => {
                // brine: a broken stream ends; a broken limit is reported
                // once, here, with the peer's address.
                this.cut = true;
                if let CodecError::Limit(kind) = error {
                    this.report(kind.clone());
                }
                let _ = this.recharge_to_zero();
            }
            Poll::Ready(Some(Ok(_))) => {
                this.timers.message_started = None;
                let _ = this.recharge();
            }
            _ => {}
        }
        polled
    }
}

impl ZmqFramedRead {
    fn recharge_to_zero(&mut self) -> bool {
        let ok = self.options.occupancy.recharge(self.charged, 0, None);
        self.charged = 0;
        ok
    }
}

/// Equivalent to [`asynchronous_codec::Framed<T, ZmqCodec>`]
pub struct FramedIo {
    pub read_half: ZmqFramedRead,
    pub write_half: ZmqFramedWrite,
}

impl FramedIo {
    pub fn new(
        read_half: Box<dyn FrameableRead>,
        write_half: Box<dyn FrameableWrite>,
        options: Arc<SocketOptions>,
    ) -> Self {
        let read_half = ZmqFramedRead::new(read_half, options);
        let write_half = ZmqFramedWrite::new(write_half);
        Self {
            read_half,
            write_half,
        }
    }

    pub fn into_parts(self) -> (ZmqFramedRead, ZmqFramedWrite) {
        (self.read_half, self.write_half)
    }
}

#[cfg(test)]
mod tests {
    mod read_buffer;
    mod socket_options;

    use super::*;
    use crate::async_rt;
    use crate::codec::ZmqGreeting;

    use bytes::{Bytes, BytesMut};
    use futures::StreamExt;
    use futures::{io::Cursor, AsyncRead};
    use std::io::ErrorKind;
    use std::sync::{Arc, Mutex};

    const INITIAL_READ_CHUNK_SIZE: usize = 128;
    const MAX_READ_CHUNK_SIZE: usize = 64 * 1024;

    struct RecordingReader {
        input: Vec<u8>,
        position: usize,
        requested_sizes: Arc<Mutex<Vec<usize>>>,
    }

    impl RecordingReader {
        fn new(input: Vec<u8>, requested_sizes: Arc<Mutex<Vec<usize>>>) -> Self {
            Self {
                input,
                position: 0,
                requested_sizes,
            }
        }
    }

    impl AsyncRead for RecordingReader {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buffer: &mut [u8],
        ) -> Poll<io::Result<usize>> {
            self.requested_sizes.lock().unwrap().push(buffer.len());

            let remaining = self.input.len() - self.position;
            if remaining == 0 {
                return Poll::Ready(Ok(0));
            }

            let bytes_read = remaining.min(buffer.len());
            let end = self.position + bytes_read;
            buffer[..bytes_read].copy_from_slice(&self.input[self.position..end]);
            self.position = end;

            Poll::Ready(Ok(bytes_read))
        }
    }

    fn encoded_stream(frames: &[&[u8]]) -> Vec<u8> {
        let mut bytes = BytesMut::from(ZmqGreeting::default());
        for frame in frames {
            if frame.len() > u8::MAX as usize {
                bytes.extend_from_slice(&[0b0000_0010]);
                bytes.extend_from_slice(&(frame.len() as u64).to_be_bytes());
            } else {
                bytes.extend_from_slice(&[0, frame.len() as u8]);
            }
            bytes.extend_from_slice(frame);
        }
        bytes.to_vec()
    }

    #[async_rt::test]
    async fn test_zmq_framed_read_yields_buffered_messages_before_reading_more() {
        let input = encoded_stream(&[b"first", b"second"]);
        let mut reader = ZmqFramedRead::new(
            Box::new(Cursor::new(input)),
            Arc::new(SocketOptions::default()),
        );

        assert!(matches!(
            reader.next().await,
            Some(Ok(Message::Greeting(_)))
        ));

        let first = reader
            .next()
            .await
            .expect("first message")
            .expect("decode first");
        let Message::Message(first) = first else {
            panic!("unexpected first frame type");
        };
        assert_eq!(first.get(0), Some(&Bytes::from_static(b"first")));

        let second = reader
            .next()
            .await
            .expect("second message")
            .expect("decode second");
        let Message::Message(second) = second else {
            panic!("unexpected second frame type");
        };
        assert_eq!(second.get(0), Some(&Bytes::from_static(b"second")));

        assert!(reader.next().await.is_none());
    }

    #[async_rt::test]
    async fn test_zmq_framed_read_reports_truncated_frame_at_eof() {
        let mut input = BytesMut::from(ZmqGreeting::default()).to_vec();
        input.extend_from_slice(&[0, 5, b'a']);
        let mut reader = ZmqFramedRead::new(
            Box::new(Cursor::new(input)),
            Arc::new(SocketOptions::default()),
        );

        assert!(matches!(
            reader.next().await,
            Some(Ok(Message::Greeting(_)))
        ));

        let error = reader
            .next()
            .await
            .expect("truncated frame should produce an item")
            .expect_err("truncated frame should fail");
        match error {
            CodecError::Io(error) => assert_eq!(error.kind(), ErrorKind::UnexpectedEof),
            other => panic!("unexpected error type: {other:?}"),
        }
    }

    #[async_rt::test]
    async fn test_zmq_framed_read_uses_decoder_demand_after_full_reads() {
        let frame = vec![b'a'; 600];
        let requested_sizes = Arc::new(Mutex::new(Vec::new()));
        let input = encoded_stream(&[&frame]);
        let input_len = input.len();
        let mut reader = ZmqFramedRead::new(
            Box::new(RecordingReader::new(input, Arc::clone(&requested_sizes))),
            Arc::new(SocketOptions::default()),
        );

        assert!(matches!(
            reader.next().await,
            Some(Ok(Message::Greeting(_)))
        ));

        let message = reader
            .next()
            .await
            .expect("message")
            .expect("decode message");
        let Message::Message(message) = message else {
            panic!("unexpected message type");
        };
        assert_eq!(message.get(0), Some(&Bytes::copy_from_slice(&frame)));

        let greeting_len = BytesMut::from(ZmqGreeting::default()).len();
        let encoded_frame_len = input_len - greeting_len;
        let initial_prefetched_frame_bytes = INITIAL_READ_CHUNK_SIZE - greeting_len;
        let remaining_frame_bytes = encoded_frame_len - initial_prefetched_frame_bytes;
        assert_eq!(
            *requested_sizes.lock().unwrap(),
            vec![INITIAL_READ_CHUNK_SIZE, remaining_frame_bytes]
        );
    }
}
