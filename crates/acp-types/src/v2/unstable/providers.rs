//! The v2 definitions of the draft feature `unstable_llm_providers`.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use crate::v2::prelude::*;
use crate::v2::shape::keywords;

wire_object! {
    /// The agent's answer to `providers/list`.
    #[new(providers: impl Into<Vec<ProviderInfo>>)]
    pub struct ListProvidersResponse {
        /// Every provider the agent can use.
        req providers: Vec<ProviderInfo> = "providers";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The `ProviderInfo` of ACP v2.
    #[new(provider_id: impl Into<ProviderId>, supported: impl Into<Vec<LlmProtocol>>, required: bool)]
    pub struct ProviderInfo {
        /// The provider's id.
        req provider_id: ProviderId = "providerId";
        /// The protocols the provider can speak.
        req supported: Vec<LlmProtocol> = "supported" [DOE | SKIP];
        /// Whether the agent needs this provider configured to work.
        req required: bool = "required";
        /// The provider's current endpoint, if the client set one (`null` when disabled).
        opt current: ProviderCurrentConfig = "current" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The endpoint a provider currently uses.
    #[schema_extend(schema_provider_current_config)]
    #[new(api_type: impl Into<LlmProtocol>, base_url: impl Into<String>)]
    pub struct ProviderCurrentConfig {
        /// The protocol spoken to the endpoint.
        req api_type: LlmProtocol = "apiType";
        /// The endpoint's base URL.
        req base_url: String = "baseUrl";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`ProviderCurrentConfig`] what the types of its fields do not say.
fn schema_provider_current_config(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"baseUrl": {"format": "uri"}}));
}

wire_object! {
    /// The `SetProviderRequest` of ACP v2.
    #[schema_extend(schema_set_provider_request)]
    #[new(provider_id: impl Into<ProviderId>, api_type: impl Into<LlmProtocol>, base_url: impl Into<String>)]
    pub struct SetProviderRequest {
        /// The provider to configure.
        req provider_id: ProviderId = "providerId";
        /// The protocol the endpoint speaks.
        req api_type: LlmProtocol = "apiType";
        /// The endpoint's base URL.
        req base_url: String = "baseUrl";
        /// HTTP headers to send with every request to the endpoint (credentials, routing).
        opt headers: BTreeMap<String, String> = "headers";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`SetProviderRequest`] what the types of its fields do not say.
fn schema_set_provider_request(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"baseUrl": {"format": "uri"}}));
}

// The definitions of this draft v2 shares with v1: v1's types.
pub use crate::{
    DisableProviderRequest, DisableProviderResponse, ListProvidersRequest, LlmProtocol, ProviderId,
    ProvidersCapabilities, SetProviderResponse,
};
