/** overlap-runtime/react: the React hook over overlap-runtime/client. React is an optional peer dependency. */

export {
  type AgentSession,
  sessionActions,
  type UseAgentSessionOptions,
  useAgentSession,
} from "./use-agent-session.js";
