import { networkError, type NetworkProvider } from '../core/network/provider.js';

const MESSAGE =
  'No network provider is configured for production, so nothing was sent. Configure a real provider, or use the development environment, which runs on the simulated network.';

/**
 * The provider of an environment that has none: every call fails with upstream_unavailable
 * and a message saying what is missing. `outreach start --env production` refuses to start
 * without a provider; this keeps other entry points (e.g. `outreach mcp`) honest.
 */
export class UnconfiguredNetwork implements NetworkProvider {
  private fail(): never {
    throw networkError('upstream_unavailable', MESSAGE);
  }
  lookupProfile = async (): Promise<never> => this.fail();
  searchPeople = async (): Promise<never> => this.fail();
  sendConnectionRequest = async (): Promise<never> => this.fail();
  sendMessage = async (): Promise<never> => this.fail();
  withdrawInvitation = async (): Promise<never> => this.fail();
  visitProfile = async (): Promise<never> => this.fail();
  likeLatestPost = async (): Promise<never> => this.fail();
  sendInMail = async (): Promise<never> => this.fail();
  lookalikeCandidates = async (): Promise<never> => this.fail();
  accountHealth = async (): Promise<never> => this.fail();
  /** Nothing can arrive from a network that is not there. */
  drainInbound = async (): Promise<[]> => [];
}
