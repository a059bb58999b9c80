package com.example.shop;

import com.example.shop.generated.GeneratedRejection;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Replays an exception that another annotation processor generates in the first round. */
public interface ReplaysOn {

  @IdempotentCommand(replayOn = GeneratedRejection.class)
  String pack(@IdempotencyKey String parcelId);
}
