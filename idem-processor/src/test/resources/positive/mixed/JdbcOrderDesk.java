package com.example.flow;

/** The user's delegate: only the command and the plain method; the transitions are generated. */
final class JdbcOrderDesk implements OrderDesk_Commands {

  @Override
  public long place(String requestId, long amount) {
    return amount;
  }

  @Override
  public String describe(long orderId) {
    return "order " + orderId;
  }

  static OrderDesk wire(dev.idem.runtime.IdemRuntime runtime) {
    return new OrderDesk_Idempotent(new JdbcOrderDesk(), runtime);
  }
}
