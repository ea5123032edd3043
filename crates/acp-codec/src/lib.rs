//! Framing for the Agent Client Protocol: turns a byte stream into message bodies and back.
//!
//! ```text
//! acp-types   the wire types (this crate does not depend on it)
//! acp-codec   bytes <-> message bodies (this crate)
//! acp-rpc     message bodies <-> JSON-RPC, on top of both
//! ```
//!
//! The codecs implement `tokio_util::codec::{Decoder, Encoder}`, so they plug into `FramedRead`,
//! `FramedWrite` and `Framed`.
//! They frame bytes only: a decoded [`Frame::Message`] holds the body of one message, not yet
//! parsed, so that the JSON-RPC layer can answer a malformed message with the right error.
//!
//! ```
//! use acp_codec::{Frame, NdjsonCodec};
//! use bytes::{Bytes, BytesMut};
//! use tokio_util::codec::Decoder;
//!
//! let mut codec = NdjsonCodec::new();
//! let mut buf = BytesMut::from(concat!(
//!     r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#, "\r\n",
//!     "\n",
//!     r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#, "\n",
//!     r#"{"jsonrpc":"2.0","#,
//! ));
//!
//! let first = codec.decode(&mut buf)?;
//! assert_eq!(
//!     first,
//!     Some(Frame::Message(Bytes::from_static(
//!         br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#
//!     )))
//! );
//! // The blank line is skipped.
//! let second = codec.decode(&mut buf)?.and_then(Frame::into_message).unwrap();
//! assert!(second.starts_with(br#"{"jsonrpc":"2.0","method":"session/cancel""#));
//! // The last line is incomplete: the codec waits for more bytes.
//! assert_eq!(codec.decode(&mut buf)?, None);
//! # Ok::<(), acp_codec::CodecError>(())
//! ```
//!
//! # Framings
//!
//! - [`NdjsonCodec`]: one message per line, the framing of the ACP specification.
//! - [`ContentLengthCodec`]: `Content-Length` headers as in LSP, which some peers use.
//! - [`AutoCodec`]: detects the framing from the first bytes received and replies in kind.
//! - [`AnyCodec`]: any of the three, chosen at run time from a [`FramingMode`].
//!
//! # Limits and errors
//!
//! Every codec has a frame limit, on by default ([`DEFAULT_MAX_FRAME_LEN`], 32 MiB, large enough
//! for base64 images in prompts), so memory stays bounded whatever the peer sends.
//! A frame over the limit is skipped and reported as [`Frame::Oversized`], and a Content-Length
//! header section that gives no usable length as [`Frame::Malformed`]; the connection goes on.
//! Only conditions that make the stream unreadable are decode errors, because a decode error ends
//! a `FramedRead`; see [`CodecError`].
//!
//! # Zero copy
//!
//! Decoded bodies are [`Bytes`](bytes::Bytes) split off the read buffer, not copied.
//! For encoding, [`FrameEncoder`] lets a serializer write a body straight into the output buffer;
//! the codec then adds the framing around it.

#![doc(test(attr(deny(warnings))))]

mod any;
mod auto;
mod content_length;
mod encoder;
mod error;
mod frame;
mod framing;
mod ndjson;

pub use any::AnyCodec;
pub use auto::AutoCodec;
pub use content_length::{ContentLengthCodec, MAX_HEADER_LEN, MAX_SKIP_FACTOR};
pub use encoder::{FrameEncoder, FrameStart};
pub use error::CodecError;
pub use frame::{DEFAULT_MAX_FRAME_LEN, Frame};
pub use framing::{Framing, FramingMode, ParseFramingModeError};
pub use ndjson::NdjsonCodec;
