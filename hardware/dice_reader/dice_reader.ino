// Dice reader firmware (Arduino Uno / Nano / any board with Serial) for hardware/PROTOCOL.md v1.
//
// Hardware assumed: each of the three dice positions has a sensor board that reports the face up as a
// 3-bit binary value on three pins (1..6 valid; 0 and 7 mean "no die / unreadable"), and a cup switch
// that is CLOSED (LOW, with the internal pull-up) while the cup covers the dice. A roll is read when the
// cup is lifted and the three readings have been stable for SETTLE_MS.
//
// The sketch sends: HELLO at power-up, HB every second, one DICE line per roll, STAT on faults.

#include <Arduino.h>

static const char FIRMWARE[] = "dr-1.0";
static const char DEVICE_ID[] = "DR0001";  // set per unit (it appears in device alerts)

static const uint8_t DIE_PINS[3][3] = {{2, 3, 4}, {5, 6, 7}, {8, 9, 10}};  // bit0, bit1, bit2 per die
static const uint8_t CUP_PIN = 11;         // LOW while the cup is down
static const unsigned long SETTLE_MS = 300;
static const unsigned long HEARTBEAT_MS = 1000;
static const unsigned long READ_TIMEOUT_MS = 3000;  // give up on a roll that never settles

static uint16_t seq = 0;              // next roll's sequence number (wraps at 65536)
static long lastSent = -1;            // seq of the last DICE line, -1 before the first
static unsigned long lastBeat = 0;
static bool cupWasDown = false;

static void sendLine(const char *body) {
  uint8_t sum = 0;
  for (const char *p = body; *p; ++p) sum ^= (uint8_t)*p;
  char tail[6];
  snprintf(tail, sizeof tail, "*%02X\r\n", sum);
  Serial.write('$');
  Serial.print(body);
  Serial.print(tail);
}

static uint8_t readDie(uint8_t i) {
  uint8_t v = 0;
  for (uint8_t b = 0; b < 3; ++b) {
    if (digitalRead(DIE_PINS[i][b]) == HIGH) v |= (1 << b);
  }
  return v;
}

static bool valid(uint8_t v) { return v >= 1 && v <= 6; }

// Wait until the three dice read the same for SETTLE_MS; false if that never happens in time.
static bool readSettled(uint8_t out[3]) {
  unsigned long start = millis(), stableSince = millis();
  uint8_t last[3] = {readDie(0), readDie(1), readDie(2)};
  while (millis() - start < READ_TIMEOUT_MS) {
    uint8_t now[3] = {readDie(0), readDie(1), readDie(2)};
    if (now[0] != last[0] || now[1] != last[1] || now[2] != last[2]) {
      memcpy(last, now, 3);
      stableSince = millis();
    } else if (millis() - stableSince >= SETTLE_MS) {
      memcpy(out, now, 3);
      return true;
    }
    if (digitalRead(CUP_PIN) == LOW) return false;  // cup put back before the dice settled
  }
  return false;
}

static void roll() {
  uint8_t d[3];
  char body[48];
  uint16_t thisSeq = seq;
  seq = (uint16_t)(seq + 1);  // a failed read still uses its number: the host can tell it happened
  if (!readSettled(d)) {
    sendLine("STAT,NOREAD,dice did not settle");
    return;
  }
  if (!valid(d[0]) || !valid(d[1]) || !valid(d[2])) {
    snprintf(body, sizeof body, "STAT,SENSOR,die values %u %u %u", d[0], d[1], d[2]);
    sendLine(body);
  }
  // send the reading as read; the host refuses values outside 1..6 and raises a device alert
  snprintf(body, sizeof body, "DICE,%u,%u,%u,%u", thisSeq, d[0], d[1], d[2]);
  sendLine(body);
  lastSent = thisSeq;
}

void setup() {
  Serial.begin(9600);
  for (uint8_t i = 0; i < 3; ++i)
    for (uint8_t b = 0; b < 3; ++b) pinMode(DIE_PINS[i][b], INPUT);
  pinMode(CUP_PIN, INPUT_PULLUP);
  char body[48];
  snprintf(body, sizeof body, "HELLO,%s,%s", FIRMWARE, DEVICE_ID);
  sendLine(body);
  cupWasDown = digitalRead(CUP_PIN) == LOW;
}

void loop() {
  bool cupDown = digitalRead(CUP_PIN) == LOW;
  if (cupWasDown && !cupDown) roll();  // the cup was just lifted
  cupWasDown = cupDown;

  if (millis() - lastBeat >= HEARTBEAT_MS) {
    lastBeat = millis();
    char body[40];
    if (lastSent < 0) {
      snprintf(body, sizeof body, "HB,,%lu", millis() / 1000UL);
    } else {
      snprintf(body, sizeof body, "HB,%ld,%lu", lastSent, millis() / 1000UL);
    }
    sendLine(body);
  }
}
