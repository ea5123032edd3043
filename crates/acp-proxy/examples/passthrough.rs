//! A proxy that intercepts nothing: everything goes through untouched. For benchmarks (S1 and
//! S3 through a chain) and wire-compatibility runs inside a conductor.
//!
//! ```text
//! acp conduct -- "passthrough" "my-agent"
//! ```

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), acp_rpc::Error> {
    let (_cx, driver) = acp_proxy::Proxy::new().serve_stdio();
    driver.await
}
