//! LLM providers (`unstable_llm_providers`): the client points the agent's model providers at
//! its own endpoints, or disables them.

use crate::prelude::*;

id_type! {
    /// Identifies one of the agent's LLM providers.
    pub struct ProviderId;
}

string_enum! {
    /// The wire protocol of an LLM endpoint. An open set: other values are kept as they are.
    pub enum LlmProtocol {
        /// The Anthropic Messages API.
        Anthropic = "anthropic",
        /// The OpenAI API.
        Openai = "openai",
        /// Azure OpenAI.
        Azure = "azure",
        /// Google Vertex AI.
        Vertex = "vertex",
        /// Amazon Bedrock.
        Bedrock = "bedrock",
    }
    Other, open_schema = true
}

wire_object! {
    /// Lists the agent's LLM providers (`providers/list`).
    #[optional_fields(new)]
    pub struct ListProvidersRequest {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

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
    /// One LLM provider of the agent and how it is configured now.
    #[new(
        provider_id: impl Into<ProviderId>,
        supported: impl Into<Vec<LlmProtocol>>,
        required: bool,
    )]
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

wire_object! {
    /// Points a provider at an endpoint (`providers/set`).
    #[new(
        provider_id: impl Into<ProviderId>,
        api_type: impl Into<LlmProtocol>,
        base_url: impl Into<String>,
    )]
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

wire_object! {
    /// The agent's answer to `providers/set`.
    #[optional_fields(new)]
    pub struct SetProviderResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Disables a provider (`providers/disable`).
    #[new(provider_id: impl Into<ProviderId>)]
    pub struct DisableProviderRequest {
        /// The provider to disable.
        req provider_id: ProviderId = "providerId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `providers/disable`.
    #[optional_fields(new)]
    pub struct DisableProviderResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent supports the `providers/*` methods (advertised in `providers`).
    #[optional_fields(new)]
    pub struct ProvidersCapabilities {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
