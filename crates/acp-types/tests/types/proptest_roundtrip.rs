//! Generated values of the main wire types round-trip: value -> JSON -> value gives the same
//! value, and JSON -> value -> JSON the same JSON, through `acp_types::from_value`,
//! `acp_types::from_str` and plain serde.

use std::collections::BTreeMap;
use std::fmt::Debug;

use acp_types::*;
use proptest::prelude::*;
use proptest::{collection::vec, option};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Checks both directions of the round trip for one value.
fn round_trip<T>(value: &T) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let fail = |what: &str, e: &dyn std::fmt::Display| TestCaseError::fail(format!("{what}: {e}"));
    let json = serde_json::to_value(value).map_err(|e| fail("encoding", &e))?;
    let back: T = acp_types::from_value(json.clone()).map_err(|e| fail("from_value", &e))?;
    prop_assert_eq!(
        &back,
        value,
        "value -> JSON -> value changed it; JSON: {}",
        json
    );
    let again = serde_json::to_value(&back).map_err(|e| fail("re-encoding", &e))?;
    prop_assert_eq!(&again, &json, "JSON -> value -> JSON changed it");
    let text = serde_json::to_string(value).map_err(|e| fail("encoding", &e))?;
    let from_text: T = acp_types::from_str(&text).map_err(|e| fail("from_str", &e))?;
    prop_assert_eq!(&from_text, value);
    let plain: T = serde_json::from_str(&text).map_err(|e| fail("serde_json", &e))?;
    prop_assert_eq!(&plain, value);
    Ok(())
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _./:-]{0,10}|[\"\\\\\n\tüé✓\u{1F600}]{1,4}"
}

fn id() -> impl Strategy<Value = String> {
    "[a-z0-9_-]{1,8}"
}

/// A finite number (JSON has no NaN or infinities), often integral.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        (-1000i32..1000).prop_map(f64::from),
        (0.0f64..1.0),
    ]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        number().prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(id(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn meta() -> impl Strategy<Value = Option<Meta>> {
    option::of(
        proptest::collection::btree_map(id(), json(), 0..3).prop_map(|m| m.into_iter().collect()),
    )
}

/// A known value of a string enum, or an unknown one (kept verbatim).
fn enum_value<T: for<'a> From<&'a str> + Debug>(
    known: &'static [&'static str],
) -> impl Strategy<Value = T> {
    prop_oneof![
        3 => proptest::sample::select(known).prop_map(T::from),
        1 => "x_[a-z]{1,6}".prop_map(|s| T::from(s.as_str())),
    ]
}

fn annotations() -> impl Strategy<Value = Option<Annotations>> {
    option::of(
        (
            option::of(vec(enum_value::<Role>(Role::VALUES), 0..3)),
            option::of(text()),
            option::of(number()),
            meta(),
        )
            .prop_map(|(audience, last_modified, priority, meta)| {
                let mut a = Annotations::new();
                a.audience = audience;
                a.last_modified = last_modified;
                a.priority = priority;
                a.meta = meta;
                a
            }),
    )
}

/// An object whose tag is not one the union knows.
fn unknown_object(tag: &'static str) -> impl Strategy<Value = Value> {
    (
        "x_[a-z]{1,6}",
        proptest::collection::btree_map("[a-z]{1,5}", json(), 0..3),
    )
        .prop_map(move |(value, fields)| {
            let mut object: serde_json::Map<String, Value> = fields.into_iter().collect();
            object.insert(tag.to_owned(), Value::from(value));
            Value::Object(object)
        })
}

fn content_block() -> impl Strategy<Value = ContentBlock> {
    let text_block = (text(), annotations(), meta()).prop_map(|(t, a, m)| {
        let mut c = TextContent::new(t);
        c.annotations = a.map(Box::new);
        c.meta = m;
        ContentBlock::Text(c)
    });
    let image = (text(), text(), option::of(text()), annotations()).prop_map(|(d, mt, uri, a)| {
        let mut c = ImageContent::new(d, mt);
        c.uri = uri;
        c.annotations = a.map(Box::new);
        ContentBlock::from(c)
    });
    let audio = (text(), text(), meta()).prop_map(|(d, mt, m)| {
        let mut c = AudioContent::new(d, mt);
        c.meta = m;
        ContentBlock::from(c)
    });
    let link = (
        text(),
        text(),
        option::of(text()),
        option::of(text()),
        option::of(any::<i64>()),
        option::of(text()),
        annotations(),
    )
        .prop_map(|(name, uri, description, mime, size, title, a)| {
            let mut c = ResourceLink::new(name, uri);
            c.description = description;
            c.mime_type = mime;
            c.size = size;
            c.title = title;
            c.annotations = a.map(Box::new);
            ContentBlock::from(c)
        });
    let resource = (
        any::<bool>(),
        text(),
        text(),
        option::of(text()),
        annotations(),
    )
        .prop_map(|(is_text, body, uri, mime, a)| {
            let contents: EmbeddedResourceResource = if is_text {
                let mut t = TextResourceContents::new(body, uri);
                t.mime_type = mime;
                t.into()
            } else {
                let mut b = BlobResourceContents::new(body, uri);
                b.mime_type = mime;
                b.into()
            };
            let mut c = EmbeddedResource::new(contents);
            c.annotations = a.map(Box::new);
            ContentBlock::from(c)
        });
    prop_oneof![
        text_block,
        image,
        audio,
        link,
        resource,
        unknown_object("type").prop_map(ContentBlock::Unknown),
    ]
}

fn tool_call_content() -> impl Strategy<Value = ToolCallContent> {
    prop_oneof![
        (content_block(), meta()).prop_map(|(c, m)| {
            let mut content = Content::new(c);
            content.meta = m;
            ToolCallContent::Content(content)
        }),
        (text(), option::of(text()), text()).prop_map(|(path, old, new)| {
            let mut diff = Diff::new(path, new);
            diff.old_text = old;
            ToolCallContent::Diff(diff)
        }),
        id().prop_map(|t| ToolCallContent::Terminal(Terminal::new(t))),
        unknown_object("type").prop_map(ToolCallContent::Unknown),
    ]
}

fn location() -> impl Strategy<Value = ToolCallLocation> {
    (text(), option::of(any::<u32>())).prop_map(|(path, line)| {
        let mut l = ToolCallLocation::new(path);
        l.line = line;
        l
    })
}

prop_compose! {
    fn tool_call()(
        call_id in id(),
        title in text(),
        kind in option::of(enum_value::<ToolKind>(ToolKind::VALUES)),
        status in option::of(enum_value::<ToolCallStatus>(ToolCallStatus::VALUES)),
        content in option::of(vec(tool_call_content(), 0..3)),
        locations in option::of(vec(location(), 0..3)),
        raw_input in option::of(json()),
        raw_output in option::of(json()),
        name in option::of(id()),
        meta in meta(),
    ) -> ToolCall {
        let mut call = ToolCall::new(call_id, title);
        call.name = name;
        call.kind = kind;
        call.status = status;
        call.content = content;
        call.locations = locations;
        call.raw_input = raw_input;
        call.raw_output = raw_output;
        call.meta = meta;
        call
    }
}

prop_compose! {
    fn tool_call_update()(
        call_id in id(),
        title in option::of(text()),
        kind in option::of(enum_value::<ToolKind>(ToolKind::VALUES)),
        status in option::of(enum_value::<ToolCallStatus>(ToolCallStatus::VALUES)),
        content in option::of(vec(tool_call_content(), 0..3)),
        locations in option::of(vec(location(), 0..3)),
        raw_input in option::of(json()),
        raw_output in option::of(json()),
        name in option::of(id()),
        meta in meta(),
    ) -> ToolCallUpdate {
        let mut update = ToolCallUpdate::new(call_id);
        update.name = name;
        update.title = title;
        update.kind = kind;
        update.status = status;
        update.content = content;
        update.locations = locations;
        update.raw_input = raw_input;
        update.raw_output = raw_output;
        update.meta = meta;
        update
    }
}

fn select_option() -> impl Strategy<Value = SessionConfigSelectOption> {
    (id(), text(), option::of(text())).prop_map(|(value, name, description)| {
        let mut o = SessionConfigSelectOption::new(value, name);
        o.description = description;
        o
    })
}

fn config_option() -> impl Strategy<Value = SessionConfigOption> {
    let options = prop_oneof![
        vec(select_option(), 0..3).prop_map(SessionConfigSelectOptions::from),
        // An empty list of groups is indistinguishable from an empty list of options.
        vec(
            (id(), text(), vec(select_option(), 0..2))
                .prop_map(|(group, name, opts)| SessionConfigSelectGroup::new(group, name, opts)),
            1..3
        )
        .prop_map(SessionConfigSelectOptions::from),
    ];
    let kind = prop_oneof![
        (id(), options).prop_map(|(current, options)| (Some((current, options)), false)),
        any::<bool>().prop_map(|b| (None, b)),
    ];
    (
        id(),
        text(),
        kind,
        option::of(text()),
        option::of(enum_value::<SessionConfigOptionCategory>(
            SessionConfigOptionCategory::VALUES,
        )),
    )
        .prop_map(|(config_id, name, kind, description, category)| {
            let mut option = match kind {
                (Some((current, options)), _) => {
                    SessionConfigOption::select(config_id, name, current, options)
                }
                (None, value) => SessionConfigOption::boolean(config_id, name, value),
            };
            if let Some(d) = description {
                option = option.description(d);
            }
            if let Some(c) = category {
                option = option.category(c);
            }
            option
        })
}

fn chunk() -> impl Strategy<Value = ContentChunk> {
    (content_block(), option::of(id()), meta()).prop_map(|(c, message_id, m)| {
        let mut chunk = ContentChunk::new(c);
        chunk.message_id = message_id.map(MessageId::from);
        chunk.meta = m;
        chunk
    })
}

fn session_update() -> impl Strategy<Value = SessionUpdate> {
    let plan = vec(
        (
            text(),
            enum_value::<PlanEntryPriority>(PlanEntryPriority::VALUES),
            enum_value::<PlanEntryStatus>(PlanEntryStatus::VALUES),
        )
            .prop_map(|(c, p, s)| PlanEntry::new(c, p, s)),
        0..3,
    )
    .prop_map(|entries| SessionUpdate::Plan(Plan::new(entries)));
    let commands = vec(
        (id(), text(), option::of(text())).prop_map(|(name, description, hint)| {
            let mut command = AvailableCommand::new(name, description);
            command.input = hint.map(|h| UnstructuredCommandInput::new(h).into());
            command
        }),
        0..3,
    )
    .prop_map(|c| SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(c)));
    let usage = (
        any::<u64>(),
        any::<u64>(),
        option::of((number(), "[A-Z]{3}")),
    )
        .prop_map(|(used, size, cost)| {
            let mut u = UsageUpdate::new(used, size);
            u.cost = cost.map(|(amount, currency)| Cost::new(amount, currency));
            SessionUpdate::UsageUpdate(u)
        });
    let info = (option::of(text()), option::of(text())).prop_map(|(title, updated_at)| {
        let mut i = SessionInfoUpdate::new();
        i.title = title;
        i.updated_at = updated_at;
        SessionUpdate::SessionInfoUpdate(i)
    });
    let notice = (
        enum_value::<NoticeSeverity>(NoticeSeverity::VALUES),
        "[a-zA-Z0-9 ]{1,16}",
        option::of(text()),
        meta(),
    )
        .prop_map(|(severity, title, description, meta)| {
            let mut n = Notice::new(severity, title);
            n.description = description;
            n.meta = meta;
            SessionUpdate::Notice(n)
        });
    let compaction = (
        id(),
        enum_value::<CompactionStatus>(CompactionStatus::VALUES),
        option::of(vec(content_block(), 0..3)),
        option::of(text()),
        meta(),
    )
        .prop_map(|(compaction_id, status, summary, error, meta)| {
            let mut c = CompactionUpdate::new(compaction_id, status);
            c.summary = summary;
            c.error = error;
            c.meta = meta;
            SessionUpdate::CompactionUpdate(c)
        });
    let summary_chunk =
        (id(), content_block(), meta()).prop_map(|(compaction_id, content, meta)| {
            let mut c = CompactionSummaryChunk::new(compaction_id, content);
            c.meta = meta;
            SessionUpdate::CompactionSummaryChunk(c)
        });
    prop_oneof![
        notice,
        compaction,
        summary_chunk,
        chunk().prop_map(SessionUpdate::UserMessageChunk),
        chunk().prop_map(SessionUpdate::AgentMessageChunk),
        chunk().prop_map(SessionUpdate::AgentThoughtChunk),
        tool_call().prop_map(SessionUpdate::from),
        tool_call_update().prop_map(SessionUpdate::from),
        plan,
        commands,
        id().prop_map(|m| SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(m))),
        vec(config_option(), 0..3)
            .prop_map(|o| SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(o))),
        info,
        usage,
        unknown_object("sessionUpdate").prop_map(SessionUpdate::Unknown),
    ]
}

fn implementation() -> impl Strategy<Value = Option<Implementation>> {
    option::of(
        (text(), option::of(text()), text()).prop_map(|(name, title, version)| {
            let mut i = Implementation::new(name, version);
            i.title = title;
            i
        }),
    )
}

fn headers() -> impl Strategy<Value = Vec<HttpHeader>> {
    vec(
        (text(), text()).prop_map(|(n, v)| HttpHeader::new(n, v)),
        0..2,
    )
}

fn mcp_server() -> impl Strategy<Value = McpServer> {
    prop_oneof![
        (
            text(),
            text(),
            vec(text(), 0..3),
            vec(
                (id(), text()).prop_map(|(n, v)| EnvVariable::new(n, v)),
                0..2
            ),
        )
            .prop_map(|(name, command, args, env)| {
                McpServer::Stdio(McpServerStdio::new(name, command, args, env))
            }),
        (text(), text(), headers())
            .prop_map(|(n, u, h)| McpServer::Http(McpServerHttp::new(n, u, h))),
        (text(), text(), headers())
            .prop_map(|(n, u, h)| McpServer::Sse(McpServerSse::new(n, u, h))),
    ]
}

fn auth_method() -> impl Strategy<Value = AuthMethod> {
    prop_oneof![
        (id(), text(), option::of(text())).prop_map(|(id, name, description)| {
            let mut a = AuthMethodAgent::new(id, name);
            a.description = description;
            AuthMethod::Agent(a)
        }),
        (
            id(),
            text(),
            option::of(vec(text(), 0..3)),
            option::of(proptest::collection::btree_map(id(), text(), 0..3)),
        )
            .prop_map(|(id, name, args, env): (_, _, _, Option<BTreeMap<_, _>>)| {
                let mut t = AuthMethodTerminal::new(id, name);
                t.args = args;
                t.env = env;
                AuthMethod::Terminal(t)
            }),
    ]
}

/// JSON shaped like protocol objects: keys from the protocol's vocabulary, tag-like values.
fn protocol_like_json() -> impl Strategy<Value = Value> {
    const KEYS: &[&str] = &[
        "type",
        "sessionUpdate",
        "outcome",
        "mode",
        "action",
        "text",
        "content",
        "toolCallId",
        "title",
        "optionId",
        "sessionId",
        "requestId",
        "value",
        "options",
        "group",
        "name",
        "id",
        "method",
        "params",
        "result",
        "error",
        "jsonrpc",
        "uri",
        "resource",
        "blob",
        "data",
        "mimeType",
        "currentValue",
        "configId",
        "kind",
        "status",
        "_meta",
        "entries",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "requestedSchema",
        "properties",
        "items",
        "enum",
    ];
    const TAGS: &[&str] = &[
        "text",
        "image",
        "resource",
        "resource_link",
        "audio",
        "diff",
        "terminal",
        "content",
        "tool_call",
        "tool_call_update",
        "plan",
        "usage_update",
        "agent_message_chunk",
        "selected",
        "cancelled",
        "form",
        "url",
        "accept",
        "decline",
        "select",
        "boolean",
        "string",
        "array",
        "http",
        "sse",
        "stdio",
        "agent",
        "2.0",
        "session/prompt",
        "session/update",
        "_x",
    ];
    let leaf = prop_oneof![json(), proptest::sample::select(TAGS).prop_map(Value::from),];
    const TAG_KEYS: &[&str] = &["type", "sessionUpdate", "outcome", "mode", "action"];
    leaf.prop_recursive(4, 32, 6, |inner| {
        let tag = option::of((
            proptest::sample::select(TAG_KEYS),
            proptest::sample::select(TAGS),
        ));
        let fields =
            proptest::collection::btree_map(proptest::sample::select(KEYS), inner.clone(), 0..6);
        prop_oneof![
            1 => vec(inner, 0..3).prop_map(Value::Array),
            3 => (tag, fields).prop_map(|(tag, fields)| {
                let mut object: serde_json::Map<String, Value> =
                    fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                if let Some((key, value)) = tag {
                    object.insert(key.to_owned(), Value::from(value));
                }
                Value::Object(object)
            }),
        ]
    })
}

/// Decoding arbitrary input never panics; whatever decodes re-encodes to JSON that decodes
/// to the same value.
fn decodes_stably<T>(doc: &Value) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let from_value = acp_types::from_value::<T>(doc.clone());
    let from_text = acp_types::from_str::<T>(&doc.to_string());
    prop_assert_eq!(
        from_value.is_ok(),
        from_text.is_ok(),
        "APIs disagree on {}",
        doc
    );
    if let Ok(value) = from_value {
        let json = serde_json::to_value(&value)
            .map_err(|e| TestCaseError::fail(format!("encoding: {e}")))?;
        let again: T = acp_types::from_value(json.clone())
            .map_err(|e| TestCaseError::fail(format!("{e}: {json} (from {doc})")))?;
        prop_assert_eq!(&again, &value);
    }
    Ok(())
}

/// 64 cases per property, so the suite stays fast; `PROPTEST_CASES=n` runs more.
fn config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 64;
    }
    config
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_documents_decode_stably_or_not_at_all(doc in protocol_like_json()) {
        decodes_stably::<ContentBlock>(&doc)?;
        decodes_stably::<SessionUpdate>(&doc)?;
        decodes_stably::<ToolCallContent>(&doc)?;
        decodes_stably::<RequestPermissionOutcome>(&doc)?;
        decodes_stably::<SessionConfigOption>(&doc)?;
        decodes_stably::<SetSessionConfigOptionRequest>(&doc)?;
        decodes_stably::<CreateElicitationRequest>(&doc)?;
        decodes_stably::<CreateElicitationResponse>(&doc)?;
        decodes_stably::<McpServer>(&doc)?;
        decodes_stably::<AuthMethod>(&doc)?;
        decodes_stably::<EmbeddedResourceResource>(&doc)?;
        decodes_stably::<MultiSelectItems>(&doc)?;
        decodes_stably::<ElicitationPropertySchema>(&doc)?;
        let text = doc.to_string();
        for method in [None, Some("session/prompt"), Some("_x")] {
            if let Ok(message) = ClientMessage::decode(text.as_bytes(), |_| method) {
                let json = serde_json::to_string(&message).expect("a message encodes");
                let again = ClientMessage::decode(json.as_bytes(), |_| method);
                prop_assert_eq!(again.as_ref().ok(), Some(&message), "{}", json);
            }
            if let Ok(message) = AgentMessage::decode(text.as_bytes(), |_| method) {
                let json = serde_json::to_string(&message).expect("a message encodes");
                let again = AgentMessage::decode(json.as_bytes(), |_| method);
                prop_assert_eq!(again.as_ref().ok(), Some(&message), "{}", json);
            }
        }
    }

    #[test]
    fn content_blocks_round_trip(block in content_block()) {
        round_trip(&block)?;
    }

    #[test]
    fn session_updates_of_every_kind_round_trip(update in session_update()) {
        round_trip(&update)?;
    }

    #[test]
    fn session_notifications_round_trip(session_id in id(), update in session_update(), m in meta()) {
        let mut notification = SessionNotification::new(session_id, update);
        notification.meta = m;
        round_trip(&notification)?;
    }

    #[test]
    fn tool_calls_round_trip(call in tool_call()) {
        round_trip(&call)?;
    }

    #[test]
    fn tool_call_updates_round_trip(update in tool_call_update()) {
        round_trip(&update)?;
    }

    #[test]
    fn prompt_requests_round_trip(session_id in id(), prompt in vec(content_block(), 0..4), m in meta()) {
        let mut request = PromptRequest::new(session_id, prompt);
        request.meta = m;
        round_trip(&request)?;
    }

    #[test]
    fn permission_requests_round_trip(
        session_id in id(),
        update in tool_call_update(),
        options in vec(
            (id(), text(), enum_value::<PermissionOptionKind>(PermissionOptionKind::VALUES))
                .prop_map(|(o, n, k)| PermissionOption::new(o, n, k)),
            0..4,
        ),
    ) {
        round_trip(&RequestPermissionRequest::new(session_id, update, options))?;
    }

    #[test]
    fn initialize_requests_round_trip(
        version in any::<u16>(),
        capabilities in option::of((
            option::of(any::<bool>()),
            option::of(any::<bool>()),
            option::of(any::<bool>()),
            any::<bool>(),
        )),
        session in option::of((any::<bool>(), any::<bool>())),
        info in implementation(),
        m in meta(),
    ) {
        let mut request = InitializeRequest::new(version);
        request.client_capabilities = capabilities.map(|(read, write, terminal, elicitation)| {
            let mut c = ClientCapabilities::new();
            c.session = session.map(|(compaction, notices)| {
                let mut s = ClientSessionCapabilities::new();
                s.compaction = compaction.then(CompactionCapabilities::new);
                s.notices = notices.then(NoticeCapabilities::new);
                s
            });
            if read.is_some() || write.is_some() {
                let mut fs = FileSystemCapabilities::new();
                fs.read_text_file = read;
                fs.write_text_file = write;
                c.fs = Some(fs);
            }
            c.terminal = terminal;
            if elicitation {
                let mut e = ElicitationCapabilities::new();
                e.form = Some(ElicitationFormCapabilities::new());
                c.elicitation = Some(e);
            }
            c
        });
        request.client_info = info;
        request.meta = m;
        round_trip(&request)?;
    }

    #[test]
    fn initialize_responses_round_trip(
        version in any::<u16>(),
        load_session in option::of(any::<bool>()),
        prompt in option::of((option::of(any::<bool>()), option::of(any::<bool>()))),
        list in any::<bool>(),
        auth_methods in option::of(vec(auth_method(), 0..3)),
        info in implementation(),
    ) {
        let mut response = InitializeResponse::new(version);
        let mut capabilities = AgentCapabilities::new();
        capabilities.load_session = load_session;
        capabilities.prompt_capabilities = prompt.map(|(image, audio)| {
            let mut p = PromptCapabilities::new();
            p.image = image;
            p.audio = audio;
            p
        });
        if list {
            let mut s = SessionCapabilities::new();
            s.list = Some(SessionListCapabilities::new());
            capabilities.session_capabilities = Some(s);
        }
        response.agent_capabilities = Some(capabilities);
        response.auth_methods = auth_methods;
        response.agent_info = info;
        round_trip(&response)?;
    }

    #[test]
    fn new_session_requests_round_trip(
        cwd in text(),
        directories in option::of(vec(text(), 0..3)),
        servers in vec(mcp_server(), 0..4),
        m in meta(),
    ) {
        let mut request = NewSessionRequest::new(cwd, servers);
        request.additional_directories = directories;
        request.meta = m;
        round_trip(&request)?;
    }

    #[test]
    fn new_session_responses_round_trip(
        session_id in id(),
        modes in option::of((
            id(),
            vec((id(), text(), option::of(text())), 0..3),
        )),
        options in option::of(vec(config_option(), 0..3)),
    ) {
        let mut response = NewSessionResponse::new(session_id);
        response.modes = modes.map(|(current, modes)| {
            let modes: Vec<SessionMode> = modes
                .into_iter()
                .map(|(id, name, description)| {
                    let mut mode = SessionMode::new(id, name);
                    mode.description = description;
                    mode
                })
                .collect();
            SessionModeState::new(current, modes)
        });
        response.config_options = options;
        round_trip(&response)?;
    }
}

/// A JSON number literal of any form: integers of up to 40 digits, decimals with more digits
/// than an `f64` keeps, exponents beyond the range of `f64`, zeros with a sign.
fn number_literal() -> impl Strategy<Value = String> {
    let digits = |n: std::ops::Range<usize>| {
        proptest::string::string_regex(&format!("[1-9][0-9]{{{},{}}}", n.start, n.end)).unwrap()
    };
    let sign = prop_oneof![Just(""), Just("-")];
    prop_oneof![
        (sign.clone(), digits(0..40)).prop_map(|(s, d)| format!("{s}{d}")),
        (sign.clone(), digits(0..3), digits(0..25)).prop_map(|(s, i, f)| format!("{s}{i}.{f}")),
        (
            sign.clone(),
            digits(0..3),
            prop_oneof![Just("e"), Just("E")],
            prop_oneof![Just(""), Just("+"), Just("-")],
            0u32..500
        )
            .prop_map(|(s, m, e, es, x)| format!("{s}{m}{e}{es}{x}")),
        prop_oneof![
            Just("0"),
            Just("-0"),
            Just("0.0"),
            Just("-0.0"),
            Just("0e0"),
            Just("1.50")
        ]
        .prop_map(String::from),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn numbers_in_unknown_fields_are_written_back_as_received(
        literal in number_literal(),
        before_tag in any::<bool>(),
    ) {
        let doc = if before_tag {
            format!(r#"{{"extra":[{literal},{{"n":{literal}}}],"type":"text","text":"t"}}"#)
        } else {
            format!(r#"{{"type":"text","text":"t","extra":[{literal},{{"n":{literal}}}]}}"#)
        };
        let block: ContentBlock = acp_types::from_str(&doc).map_err(|e| TestCaseError::fail(format!("{doc}: {e}")))?;
        let text = serde_json::to_string(&block).expect("encodes");
        prop_assert_eq!(
            &text,
            &format!(r#"{{"type":"text","text":"t","extra":[{literal},{{"n":{literal}}}]}}"#)
        );
        let again: ContentBlock = acp_types::from_str(&text).expect("decodes again");
        prop_assert_eq!(&again, &block);
    }
}
