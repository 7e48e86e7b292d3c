/** overlap/react: the React hook over overlap/client. React is an optional peer dependency. */

export {
  type AgentSession,
  sessionActions,
  type UseAgentSessionOptions,
  useAgentSession,
} from "./use-agent-session.js";
