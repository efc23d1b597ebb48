/**
 * Whether the upstream connection an exchange used may carry another request of its pool. Only
 * when request and response are known to have paired cleanly: the whole request was written before
 * the response began (an early answer leaves unread body bytes in doubt), the response arrived
 * whole, and neither side was cut. Anything else destroys the connection.
 */
export interface ExchangeFacts {
  /** Every byte of the request was handed to the connection. */
  readonly requestSent: boolean;
  /** The response's head arrived before the request was fully sent. */
  readonly answeredEarly: boolean;
  readonly responseComplete: boolean;
  /** The agent went away, a timeout fired, or the session was cut mid-exchange. */
  readonly interrupted: boolean;
}

export const connectionReusable = (facts: ExchangeFacts): boolean =>
  facts.requestSent && !facts.answeredEarly && facts.responseComplete && !facts.interrupted;
