import { describe, expect, it } from "vitest";
import { countIn, focusRequest, isChinese, isOtherLanguage } from "./intent-words.js";

describe("focusRequest", () => {
  it.each([
    [
      "Hi there! I hope you're having a lovely day. My sister just started running, so I was wondering if you could show me some running socks. Thank you so much!",
      "show me some running socks.",
    ],
    [
      "Good morning! We're going camping. Could you add the vertex headlamp in silver to my cart? Thanks!",
      "add the vertex headlamp in silver to my cart?",
    ],
    ["您好，打扰一下。我下周要去跑马拉松，想请您帮我推荐几款跑步袜，谢谢！", "推荐几款跑步袜"],
    ["您好，我想看看我以前的订单", "我想看看我以前的订单"],
  ])("finds the request in %s", (text, request) => {
    expect(focusRequest(text)).toBe(request);
  });

  it("leaves a short request and a decimal size whole", () => {
    expect(focusRequest("show me running shoes under 100")).toBe("show me running shoes under 100");
    expect(focusRequest("add the aero trail runner in size 10.5 in volt")).toBe(
      "add the aero trail runner in size 10.5 in volt",
    );
  });
});

describe("isChinese", () => {
  it.each([
    ["把10码荧光绿的Aero越野跑鞋加入购物车", true],
    ["来两件Glacier Rain Jacket，L号，蓝色", true],
    ["我要一双Swift Road Racer，42码", true],
    ["I want 两双 merino wool socks in M charcoal", false],
    ["add the aero trail runner", false],
    ["こんにちは、ランニングシューズを探しています", false],
  ])("%s → %s", (text, zh) => {
    expect(isChinese(text)).toBe(zh);
  });
});

describe("isOtherLanguage", () => {
  it.each([
    ["Bonjour, je cherche des chaussures de course", true],
    ["Hola, quiero comprar unos calcetines", true],
    ["안녕하세요 운동화 보여주세요", true],
    ["Привет, покажи кроссовки", true],
    ["show me the price tag of the des moines jacket", false],
    ["推荐几款跑鞋", false],
  ])("%s → %s", (text, other) => {
    expect(isOtherLanguage(text)).toBe(other);
  });
});

describe("countIn", () => {
  it("reads counts in digits and words, never an ordinal", () => {
    expect(countIn("three pairs")).toBe(3);
    expect(countIn("a dozen")).toBe(1);
    expect(countIn("dozen ropes")).toBe(12);
    expect(countIn("三双")).toBe(3);
    expect(countIn("第二个")).toBeUndefined();
    expect(countIn("第3款")).toBeUndefined();
  });
});
