package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;
import java.util.Map;

/** Result types the codec replays exactly, each in another way. */
public interface Shapes {

  sealed interface Figure permits Circle, Square {}

  record Circle(double radius) implements Figure {}

  record Square(double side) implements Figure {}

  enum Currency { EUR, USD }

  /** Immutable with getters: read back through the constructor, whose names idem passes to the runtime. */
  final class Money {
    private final long amountCents;
    private final Currency currency;

    public Money(long amountCents, Currency currency) {
      this.amountCents = amountCents;
      this.currency = currency;
    }

    public long amountCents() {
      return amountCents;
    }

    public Currency currency() {
      return currency;
    }
  }

  /** A JavaBean. */
  class Account {
    private String owner;
    private long balanceCents;

    public String getOwner() {
      return owner;
    }

    public void setOwner(String owner) {
      this.owner = owner;
    }

    public long getBalanceCents() {
      return balanceCents;
    }

    public void setBalanceCents(long balanceCents) {
      this.balanceCents = balanceCents;
    }
  }

  /** A tree: the shape refers to itself where it recurses. */
  record Node(String name, List<Node> children) {}

  @IdempotentCommand(scope = "shapes.draw")
  Figure draw(@IdempotencyKey String requestId);

  @IdempotentCommand(scope = "shapes.prices")
  List<Money> prices(@IdempotencyKey String requestId);

  @IdempotentCommand(scope = "shapes.accounts")
  Map<String, Account> accounts(@IdempotencyKey String requestId);

  @IdempotentCommand(scope = "shapes.tree")
  Node tree(@IdempotencyKey String requestId);
}
