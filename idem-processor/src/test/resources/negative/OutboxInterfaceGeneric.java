package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxInterfaceGeneric<E> {

  @OutboxEvent(destination = "orders")
  void published(String event);
}
