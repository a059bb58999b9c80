package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The local for the nested path header.messageId would be "messageHeader", the name of a parameter. */
public interface LocalNames {

  record Header(String messageId) {}

  record Paid(Header header) {}

  @IdempotentCommand
  String settle(@IdempotencyKey("header.messageId") Paid message, String messageHeader);
}
