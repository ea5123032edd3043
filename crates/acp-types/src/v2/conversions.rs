//! `From` each variant's payload for the v2 unions, where the payload belongs to one
//! variant only.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

#[allow(unused_imports)] // With no draft feature, nothing of `unstable` is named.
use super::*;

impl From<ToolCallPermissionSubject> for RequestPermissionSubject {
    fn from(value: ToolCallPermissionSubject) -> Self {
        Self::ToolCall(value)
    }
}

impl From<CommandPermissionSubject> for RequestPermissionSubject {
    fn from(value: CommandPermissionSubject) -> Self {
        Self::Command(value)
    }
}

impl From<Content> for ToolCallContent {
    fn from(value: Content) -> Self {
        Self::Content(value)
    }
}

impl From<Diff> for ToolCallContent {
    fn from(value: Diff) -> Self {
        Self::Diff(value)
    }
}

impl From<Terminal> for ToolCallContent {
    fn from(value: Terminal) -> Self {
        Self::Terminal(value)
    }
}

impl From<TextContent> for ContentBlock {
    fn from(value: TextContent) -> Self {
        Self::Text(value)
    }
}

impl From<ImageContent> for ContentBlock {
    fn from(value: ImageContent) -> Self {
        Self::Image(Box::new(value))
    }
}

impl From<AudioContent> for ContentBlock {
    fn from(value: AudioContent) -> Self {
        Self::Audio(Box::new(value))
    }
}

impl From<ResourceLink> for ContentBlock {
    fn from(value: ResourceLink) -> Self {
        Self::ResourceLink(Box::new(value))
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(value: EmbeddedResource) -> Self {
        Self::Resource(Box::new(value))
    }
}

impl From<StringPropertySchema> for ElicitationPropertySchema {
    fn from(value: StringPropertySchema) -> Self {
        Self::String(value)
    }
}

impl From<NumberPropertySchema> for ElicitationPropertySchema {
    fn from(value: NumberPropertySchema) -> Self {
        Self::Number(value)
    }
}

impl From<IntegerPropertySchema> for ElicitationPropertySchema {
    fn from(value: IntegerPropertySchema) -> Self {
        Self::Integer(value)
    }
}

impl From<BooleanPropertySchema> for ElicitationPropertySchema {
    fn from(value: BooleanPropertySchema) -> Self {
        Self::Boolean(value)
    }
}

impl From<MultiSelectPropertySchema> for ElicitationPropertySchema {
    fn from(value: MultiSelectPropertySchema) -> Self {
        Self::Array(value)
    }
}

impl From<StringMultiSelectItems> for MultiSelectItems {
    fn from(value: StringMultiSelectItems) -> Self {
        Self::String(value)
    }
}

impl From<AuthMethodTerminal> for AuthMethod {
    fn from(value: AuthMethodTerminal) -> Self {
        Self::Terminal(value)
    }
}

impl From<AuthMethodAgent> for AuthMethod {
    fn from(value: AuthMethodAgent) -> Self {
        Self::Agent(value)
    }
}

impl From<Command> for AvailableCommand {
    fn from(value: Command) -> Self {
        Self::Command(value)
    }
}

impl From<TextCommandInput> for AvailableCommandInput {
    fn from(value: TextCommandInput) -> Self {
        Self::Text(value)
    }
}

impl From<RunningStateUpdate> for StateUpdate {
    fn from(value: RunningStateUpdate) -> Self {
        Self::Running(value)
    }
}

impl From<IdleStateUpdate> for StateUpdate {
    fn from(value: IdleStateUpdate) -> Self {
        Self::Idle(value)
    }
}

impl From<RequiresActionStateUpdate> for StateUpdate {
    fn from(value: RequiresActionStateUpdate) -> Self {
        Self::RequiresAction(value)
    }
}

#[cfg(feature = "unstable_subagents")]
impl From<UnknownStateUpdate> for StateUpdate {
    fn from(value: UnknownStateUpdate) -> Self {
        Self::UnknownState(value)
    }
}

impl From<BackgroundTerminal> for BackgroundWork {
    fn from(value: BackgroundTerminal) -> Self {
        Self::Terminal(value)
    }
}

impl From<BackgroundToolCall> for BackgroundWork {
    fn from(value: BackgroundToolCall) -> Self {
        Self::ToolCall(value)
    }
}

#[cfg(feature = "unstable_subagents")]
impl From<BackgroundSubagent> for BackgroundWork {
    fn from(value: BackgroundSubagent) -> Self {
        Self::Subagent(value)
    }
}

impl From<UserMessage> for SessionUpdate {
    fn from(value: UserMessage) -> Self {
        Self::UserMessage(value)
    }
}

impl From<AgentMessage> for SessionUpdate {
    fn from(value: AgentMessage) -> Self {
        Self::AgentMessage(value)
    }
}

impl From<AgentThought> for SessionUpdate {
    fn from(value: AgentThought) -> Self {
        Self::AgentThought(value)
    }
}

impl From<StateUpdate> for SessionUpdate {
    fn from(value: StateUpdate) -> Self {
        Self::StateUpdate(value)
    }
}

impl From<ToolCallContentChunk> for SessionUpdate {
    fn from(value: ToolCallContentChunk) -> Self {
        Self::ToolCallContentChunk(Box::new(value))
    }
}

impl From<ToolCallUpdate> for SessionUpdate {
    fn from(value: ToolCallUpdate) -> Self {
        Self::ToolCallUpdate(Box::new(value))
    }
}

impl From<TerminalUpdate> for SessionUpdate {
    fn from(value: TerminalUpdate) -> Self {
        Self::TerminalUpdate(Box::new(value))
    }
}

impl From<TerminalOutputChunk> for SessionUpdate {
    fn from(value: TerminalOutputChunk) -> Self {
        Self::TerminalOutputChunk(value)
    }
}

impl From<PlanUpdate> for SessionUpdate {
    fn from(value: PlanUpdate) -> Self {
        Self::PlanUpdate(value)
    }
}

#[cfg(feature = "unstable")]
impl From<PlanRemoved> for SessionUpdate {
    fn from(value: PlanRemoved) -> Self {
        Self::PlanRemoved(value)
    }
}

impl From<AvailableCommandsUpdate> for SessionUpdate {
    fn from(value: AvailableCommandsUpdate) -> Self {
        Self::AvailableCommandsUpdate(value)
    }
}

impl From<ConfigOptionUpdate> for SessionUpdate {
    fn from(value: ConfigOptionUpdate) -> Self {
        Self::ConfigOptionUpdate(value)
    }
}

impl From<SessionInfoUpdate> for SessionUpdate {
    fn from(value: SessionInfoUpdate) -> Self {
        Self::SessionInfoUpdate(value)
    }
}

impl From<UsageUpdate> for SessionUpdate {
    fn from(value: UsageUpdate) -> Self {
        Self::UsageUpdate(value)
    }
}

impl From<Notice> for SessionUpdate {
    fn from(value: Notice) -> Self {
        Self::Notice(value)
    }
}

impl From<CompactionUpdate> for SessionUpdate {
    fn from(value: CompactionUpdate) -> Self {
        Self::CompactionUpdate(value)
    }
}

impl From<CompactionSummaryChunk> for SessionUpdate {
    fn from(value: CompactionSummaryChunk) -> Self {
        Self::CompactionSummaryChunk(value)
    }
}

#[cfg(feature = "unstable_subagents")]
impl From<SubagentUpdate> for SessionUpdate {
    fn from(value: SubagentUpdate) -> Self {
        Self::SubagentUpdate(Box::new(value))
    }
}

#[cfg(feature = "unstable_subagents")]
impl From<SessionMessage> for SessionUpdate {
    fn from(value: SessionMessage) -> Self {
        Self::SessionMessage(Box::new(value))
    }
}

#[cfg(feature = "unstable_subagents")]
impl From<SessionMessageChunk> for SessionUpdate {
    fn from(value: SessionMessageChunk) -> Self {
        Self::SessionMessageChunk(value)
    }
}

impl From<PlanItems> for PlanUpdateContent {
    fn from(value: PlanItems) -> Self {
        Self::Items(value)
    }
}

#[cfg(feature = "unstable")]
impl From<PlanFile> for PlanUpdateContent {
    fn from(value: PlanFile) -> Self {
        Self::File(value)
    }
}

#[cfg(feature = "unstable")]
impl From<PlanMarkdown> for PlanUpdateContent {
    fn from(value: PlanMarkdown) -> Self {
        Self::Markdown(value)
    }
}

impl From<McpServerHttp> for McpServer {
    fn from(value: McpServerHttp) -> Self {
        Self::Http(value)
    }
}

#[cfg(feature = "unstable_mcp_over_acp")]
impl From<McpServerAcp> for McpServer {
    fn from(value: McpServerAcp) -> Self {
        Self::Acp(value)
    }
}

impl From<McpServerStdio> for McpServer {
    fn from(value: McpServerStdio) -> Self {
        Self::Stdio(value)
    }
}

impl From<ReplayFromStart> for ReplayFrom {
    fn from(value: ReplayFromStart) -> Self {
        Self::Start(value)
    }
}

impl From<CancelledPermissionOutcome> for RequestPermissionOutcome {
    fn from(value: CancelledPermissionOutcome) -> Self {
        Self::Cancelled(value)
    }
}

impl From<SelectedPermissionOutcome> for RequestPermissionOutcome {
    fn from(value: SelectedPermissionOutcome) -> Self {
        Self::Selected(value)
    }
}
